import { z } from 'zod';
import { RATE_TYPES, TAX_DECISIONS, TAX_ITEM_TYPES } from './tax';
import { objectId } from './object-id';

/**
 * Reports over the tax-record ledger (tax service `TaxReport` RPC, Admin `/tax/reports/*`).
 * Amounts are integers in minor units of their currency; EUR figures are cents.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code');

export const TAX_REPORT_SOURCES = ['transactions', 'invoices', 'both'] as const;
export type TaxReportSource = (typeof TAX_REPORT_SOURCES)[number];

export const TAX_REPORT_KINDS = [
  'by-country',
  'by-country-details',
  'revenue-by-country',
  'currencies',
  'vat-oss',
  'vat-oss-details',
  'by-country-export',
  'revenue-by-country-export',
  'vat-oss-export',
  'vat-oss-export-elster',
] as const;
export type TaxReportKind = (typeof TAX_REPORT_KINDS)[number];

/**
 * EUR rates the caller files with: units of the currency per 1 EUR (`{"USD": 1.0823}`), as the ECB
 * quotes them. Each one replaces the ECB rate the tax service keeps for its currency.
 */
export const eurRates = z.record(currencyCode, z.number().positive().finite());

/** Filters every report takes. */
export const taxReportFilters = z.object({
  /** IANA zone the period's days are counted in; default UTC. */
  timezone: z.string().min(1).max(64).default('UTC'),
  source: z.enum(TAX_REPORT_SOURCES).default('both'),
  currency: currencyCode.optional(),
  siteId: objectId.optional(),
  eurRates: eurRates.optional(),
});

/** Body of `TaxReport`: the report asked for and its period (`startDate`/`endDate`, or `year`/`quarter` for VAT OSS). */
export const taxReportRequest = z
  .object({
    report: z.enum(TAX_REPORT_KINDS),
    startDate: isoDate.optional(),
    endDate: isoDate.optional(),
    year: z.number().int().min(2021).max(9999).optional(),
    quarter: z.number().int().min(1).max(4).optional(),
  })
  .merge(taxReportFilters)
  .strict();
export type TaxReportRequest = z.infer<typeof taxReportRequest>;

/** The period a report covers: days in `timezone`, and the instants they span (end exclusive). */
export const taxReportPeriod = z.object({
  startDate: isoDate,
  endDate: isoDate,
  timezone: z.string(),
  startAt: z.string(),
  endAt: z.string(),
});
export type TaxReportPeriod = z.infer<typeof taxReportPeriod>;

export const taxReportEcho = z.object({
  period: taxReportPeriod,
  source: z.enum(TAX_REPORT_SOURCES),
  currency: z.string().nullable(),
  siteId: z.string().nullable(),
});

/** A conversion to EUR: the rate used (currency units per EUR), its date, and the converted amounts. */
export const eurAmounts = z.object({
  rate: z.number(),
  rateDate: isoDate,
  net: z.number().int(),
  tax: z.number().int(),
  gross: z.number().int(),
});
export type EurAmounts = z.infer<typeof eurAmounts>;

const money = { net: z.number().int(), tax: z.number().int(), gross: z.number().int() };

/** Where an EUR rate came from: the ECB's published reference rate, or the caller's `eurRates`. */
export const EUR_RATE_SOURCES = ['ecb', 'caller'] as const;
export type EurRateSource = (typeof EUR_RATE_SOURCES)[number];

/**
 * A rate a report converted a currency at: units per EUR, the day it is of (the ECB publication
 * day: the period's last day or the next publication day; the period's last day for a caller's
 * rate) and its source. A caller's `eurRates` entry wins over the ECB rate of its currency.
 */
export const eurRateUsed = z.object({
  currency: z.string(),
  rate: z.number(),
  rateDate: isoDate,
  source: z.enum(EUR_RATE_SOURCES),
});
export type EurRateUsed = z.infer<typeof eurRateUsed>;

/**
 * Why a currency has no EUR rate: the ECB has not published the rate for the period's last day
 * (or the next publication day) yet, the tax service keeps no ECB rates for that time, or the ECB
 * publishes no rate for the currency.
 */
export const EUR_RATE_GAPS = ['not_published', 'not_kept', 'not_quoted'] as const;
export type EurRateGap = (typeof EUR_RATE_GAPS)[number];

export const eurRateMissing = z.object({
  currency: z.string(),
  /** The day the rate is wanted for: the period's last day. */
  rateDate: isoDate,
  reason: z.enum(EUR_RATE_GAPS),
  message: z.string(),
});
export type EurRateMissing = z.infer<typeof eurRateMissing>;

/** Rates behind a report's EUR figures, and the currencies left unconverted with the reason. */
const eurRateInfo = { eurRates: z.array(eurRateUsed), eurRatesMissing: z.array(eurRateMissing) };

export const currencyTotal = z.object({ currency: z.string(), ...money });
export type CurrencyTotal = z.infer<typeof currencyTotal>;

/** Totals over every row: per currency, and in EUR over the rows that could be converted. */
export const reportTotals = z.object({
  byCurrency: z.array(currencyTotal),
  eur: z.object(money),
  /** Currencies without an EUR rate: left out of `eur`. */
  unconverted: z.array(z.string()),
});
export type ReportTotals = z.infer<typeof reportTotals>;

/** A report of rows: the request echoed, the EUR rates used (or missing), the rows and their totals. */
const rowsReport = <T extends z.ZodTypeAny>(row: T) =>
  taxReportEcho.extend({ ...eurRateInfo, data: z.array(row), totals: reportTotals });

export const byCountryRow = z.object({
  /** Country whose VAT applies (the buyer's country for lines outside the EU's VAT). */
  country: z.string(),
  currency: z.string(),
  ...money,
  /** Ledger lines counted. */
  lines: z.number().int(),
  eur: eurAmounts.nullable(),
});
export type ByCountryRow = z.infer<typeof byCountryRow>;

export const byCountryReport = rowsReport(byCountryRow);
export type ByCountryReport = z.infer<typeof byCountryReport>;

export const byCountryDetailRow = byCountryRow.extend({
  taxRate: z.number(),
  taxRateCode: z.string(),
  rateType: z.enum(RATE_TYPES).nullable(),
  decision: z.enum(TAX_DECISIONS),
  itemType: z.enum(TAX_ITEM_TYPES),
});
export type ByCountryDetailRow = z.infer<typeof byCountryDetailRow>;

export const byCountryDetailsReport = rowsReport(byCountryDetailRow);
export type ByCountryDetailsReport = z.infer<typeof byCountryDetailsReport>;

export const revenueByCountryRow = z.object({
  /** The buyer's country. */
  country: z.string(),
  currency: z.string(),
  ...money,
  /** Sale entries, and reversal or credit entries, counted. */
  sales: z.number().int(),
  corrections: z.number().int(),
  eur: eurAmounts.nullable(),
});
export type RevenueByCountryRow = z.infer<typeof revenueByCountryRow>;

export const revenueByCountryReport = rowsReport(revenueByCountryRow);
export type RevenueByCountryReport = z.infer<typeof revenueByCountryReport>;

export const currencyRow = z.object({
  currency: z.string(),
  ...money,
  entries: z.number().int(),
  eur: eurAmounts.nullable(),
});
export type CurrencyRow = z.infer<typeof currencyRow>;

export const currenciesReport = rowsReport(currencyRow);
export type CurrenciesReport = z.infer<typeof currenciesReport>;

export const OSS_SUPPLY_TYPES = ['GOODS', 'SERVICES'] as const;
export const OSS_RATE_TYPES = ['STANDARD', 'REDUCED'] as const;

/** Amounts of one currency inside an OSS figure and their conversion to EUR. */
export const ossConversion = z.object({
  currency: z.string(),
  net: z.number().int(),
  tax: z.number().int(),
  rate: z.number(),
  rateDate: isoDate,
  eurNet: z.number().int(),
  eurTax: z.number().int(),
});
export type OssConversion = z.infer<typeof ossConversion>;

export const ossSupply = z.object({
  supplyType: z.enum(OSS_SUPPLY_TYPES),
  rateType: z.enum(OSS_RATE_TYPES),
  vatRate: z.number(),
  /** EUR cents. */
  taxableAmount: z.number().int(),
  vatAmount: z.number().int(),
  conversions: z.array(ossConversion),
});
export type OssSupply = z.infer<typeof ossSupply>;

/** A change of an earlier quarter's VAT for one member state of consumption, declared in this return. */
export const ossCorrection = z.object({
  year: z.number().int(),
  quarter: z.number().int(),
  /** EUR cents; negative when VAT is given back. */
  vatAmount: z.number().int(),
  /** VAT of that quarter and country as declared before this return (its own return plus earlier corrections). */
  declaredVat: z.number().int(),
  conversions: z.array(ossConversion),
});
export type OssCorrection = z.infer<typeof ossCorrection>;

export const ossCountry = z.object({
  /** Member state of consumption (`EL` for Greece). */
  country: z.string(),
  supplies: z.array(ossSupply),
  corrections: z.array(ossCorrection),
  vatTotal: z.number().int(),
  correctionsTotal: z.number().int(),
  /** VAT due for the country: `vatTotal` + `correctionsTotal`. */
  balance: z.number().int(),
});
export type OssCountry = z.infer<typeof ossCountry>;

/** Lines of the quarter the OSS return leaves out, summed by decision (domestic, reverse charge, exports...). */
export const ossExcluded = z.object({
  decision: z.enum(TAX_DECISIONS),
  currency: z.string(),
  net: z.number().int(),
  tax: z.number().int(),
  lines: z.number().int(),
});

export const vatOssReport = taxReportEcho.extend({
  year: z.number().int(),
  quarter: z.number().int(),
  /** Every rate the return converted at (no currency is left unconverted: that answers 422). */
  eurRates: z.array(eurRateUsed),
  /** Member state of identification and the OSS VAT ID, from the tax settings. */
  memberStateOfIdentification: z.string().nullable(),
  vatId: z.string().nullable(),
  countries: z.array(ossCountry),
  totals: z.object({
    taxableAmount: z.number().int(),
    vatAmount: z.number().int(),
    correctionsTotal: z.number().int(),
    balance: z.number().int(),
  }),
  excluded: z.array(ossExcluded),
});
export type VatOssReport = z.infer<typeof vatOssReport>;

export const vatOssDetailRow = z.object({
  country: z.string(),
  supplyType: z.enum(OSS_SUPPLY_TYPES),
  rateType: z.enum(OSS_RATE_TYPES),
  vatRate: z.number(),
  currency: z.string(),
  net: z.number().int(),
  tax: z.number().int(),
  lines: z.number().int(),
  eur: eurAmounts.nullable(),
});

export const vatOssCorrectionEntry = z.object({
  recordId: z.string(),
  correctsRecordId: z.string(),
  country: z.string(),
  year: z.number().int(),
  quarter: z.number().int(),
  currency: z.string(),
  tax: z.number().int(),
  eurTax: z.number().int().nullable(),
});

export const vatOssDetailsReport = taxReportEcho.extend({
  ...eurRateInfo,
  year: z.number().int(),
  quarter: z.number().int(),
  data: z.array(vatOssDetailRow),
  corrections: z.array(vatOssCorrectionEntry),
});
export type VatOssDetailsReport = z.infer<typeof vatOssDetailsReport>;

/** An export file. */
export const taxReportFile = z.object({ filename: z.string(), contentType: z.string(), content: z.string() });
export type TaxReportFile = z.infer<typeof taxReportFile>;

/** Body of `GetEcbRates` (Admin `GET /tax/ecb-rates`): a day, or none for the latest publication kept. */
export const ecbRatesQuery = z.object({ date: isoDate.optional() }).strict();
export type EcbRatesQuery = z.infer<typeof ecbRatesQuery>;

/** An ECB publication the tax service keeps. */
export const ecbRates = z.object({
  /** The day asked for (null: the latest publication was asked for). */
  date: isoDate.nullable(),
  /** The publication day: `date` itself, or the next publication day after it. */
  rateDate: isoDate,
  /** Units of each currency per 1 EUR. */
  rates: z.record(z.string(), z.number()),
  /** When the tax service first stored the day, and when its rates last changed. */
  fetchedAt: z.string(),
  updatedAt: z.string(),
});
export type EcbRates = z.infer<typeof ecbRates>;
