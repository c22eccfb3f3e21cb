import { ErrorCode, UnprocessableError } from '@paymesh/core';
import type {
  OssConversion,
  OssCorrection,
  OssCountry,
  OssSupply,
  TaxDecision,
  TaxReportPeriod,
  VatOssDetailsReport,
  VatOssReport,
} from '@paymesh/contracts';
import type { EurConverter } from './eur';
import { compareQuarters, quarterKey, type Quarter } from './period';
import type { LineGroup } from './query';
import { addLines, sumBy } from './sum-by';

/**
 * The Union OSS return of a quarter (pure), shaped after the EU core VAT return message: per member
 * state of consumption, the supplies by supply type and rate (taxable amount and VAT in EUR), and
 * the corrections of earlier quarters as one VAT change per quarter. Everything is taken as
 * supplied from the member state of identification (no fixed establishments, no dispatch from
 * other member states).
 */

/** The only lines a Union OSS return declares: destination VAT on supplies to consumers in other member states. */
export const OSS_DECISION: TaxDecision = 'oss_destination';

/** One correction entry's OSS VAT for one member state, with the quarter of the sale it corrects. */
export interface OssCorrectionItem {
  recordId: string;
  correctsRecordId: string;
  country: string;
  period: Quarter;
  currency: string;
  /** Sum of the entry's OSS line VAT for the country (negative for a refund). */
  tax: number;
}

export interface OssInput {
  quarter: Quarter;
  period: TaxReportPeriod;
  echo: Omit<
    VatOssReport,
    'eurRates' | 'year' | 'quarter' | 'memberStateOfIdentification' | 'vatId' | 'countries' | 'totals' | 'excluded'
  >;
  settings: { homeCountry: string | null; vatId: string | null };
  /** Lines of the quarter's sales and of corrections of sales of the same quarter. */
  lines: LineGroup[];
  /** Corrections, dated in the quarter, of sales of earlier quarters. */
  corrections: OssCorrectionItem[];
  /** VAT (EUR cents) declared so far for `country|YYYY-Qn`. */
  declared: ReadonlyMap<string, number>;
  eur: EurConverter;
}

/** Greece files as EL in VAT matters. */
export const vatCountry = (cc: string): string => (cc === 'GR' ? 'EL' : cc);

export const supplyTypeOf = (itemType: string): 'GOODS' | 'SERVICES' =>
  itemType === 'goods' || itemType === 'shipping' ? 'GOODS' : 'SERVICES';
/** Standard rates (and lines from before the ledger kept the rate type) are STANDARD; reduced, super-reduced and zero rates REDUCED. */
export const ossRateTypeOf = (rateType: string | null): 'STANDARD' | 'REDUCED' =>
  rateType === null || rateType === 'standard' ? 'STANDARD' : 'REDUCED';

export const declaredKey = (country: string, q: Quarter): string => `${country}|${quarterKey(q)}`;

function cents(eur: EurConverter, currency: string, amount: number): number {
  const c = eur.cents(currency, amount);
  if (c === null) {
    const gap = eur.missing(currency);
    throw new UnprocessableError(
      `eurRates: no EUR rate for ${currency}: ${gap.message}; the OSS return is made out in EUR, so give the rate to file with as eurRates=${currency}:<units per EUR>`,
      {
        code: ErrorCode.TAX_REPORT_EUR_RATE_MISSING,
        field: 'eurRates',
      },
    );
  }
  return c;
}

function conversion(eur: EurConverter, currency: string, net: number, tax: number): OssConversion {
  const eurNet = cents(eur, currency, net);
  const eurTax = cents(eur, currency, tax);
  const rate = eur.rateOf(currency);
  if (!rate) throw new Error(`no EUR rate for ${currency}, though its amounts were converted`);
  return { currency, net, tax, rate: rate.rate, rateDate: rate.rateDate, eurNet, eurTax };
}

/** OSS lines of the quarter summed per country, supply type, rate type, rate and currency. */
export function ossLineRows(lines: LineGroup[]) {
  return sumBy(
    lines.flatMap((g) =>
      g.decision === OSS_DECISION && g.taxCountry !== null
        ? [
            {
              country: vatCountry(g.taxCountry),
              supplyType: supplyTypeOf(g.itemType),
              rateType: ossRateTypeOf(g.rateType),
              vatRate: g.taxRate,
              currency: g.currency,
              net: g.net,
              tax: g.tax,
              lines: g.lines,
            },
          ]
        : [],
    ),
    (r) => [r.country, r.supplyType, r.rateType, r.vatRate, r.currency].join('|'),
    addLines,
  );
}

export function buildVatOss(input: OssInput): VatOssReport {
  const countries = new Map<string, OssCountry>();
  const country = (cc: string): OssCountry => {
    let c = countries.get(cc);
    if (!c)
      countries.set(
        cc,
        (c = { country: cc, supplies: [], corrections: [], vatTotal: 0, correctionsTotal: 0, balance: 0 }),
      );
    return c;
  };

  for (const r of ossLineRows(input.lines)) {
    const c = country(r.country);
    let supply: OssSupply | undefined = c.supplies.find(
      (s) => s.supplyType === r.supplyType && s.rateType === r.rateType && s.vatRate === r.vatRate,
    );
    if (!supply)
      c.supplies.push(
        (supply = {
          supplyType: r.supplyType,
          rateType: r.rateType,
          vatRate: r.vatRate,
          taxableAmount: 0,
          vatAmount: 0,
          conversions: [],
        }),
      );
    const conv = conversion(input.eur, r.currency, r.net, r.tax);
    supply.conversions.push(conv);
    supply.taxableAmount += conv.eurNet;
    supply.vatAmount += conv.eurTax;
  }

  const corrections = new Map<string, { country: string; period: Quarter; conversions: Map<string, number> }>();
  for (const item of input.corrections) {
    const k = declaredKey(item.country, item.period);
    const seen = corrections.get(k) ?? {
      country: item.country,
      period: item.period,
      conversions: new Map<string, number>(),
    };
    seen.conversions.set(item.currency, (seen.conversions.get(item.currency) ?? 0) + item.tax);
    corrections.set(k, seen);
  }
  for (const [k, corr] of corrections) {
    const conversions = [...corr.conversions]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, tax]) => conversion(input.eur, currency, 0, tax));
    const vatAmount = conversions.reduce((s, c) => s + c.eurTax, 0);
    const entry: OssCorrection = {
      year: corr.period.year,
      quarter: corr.period.quarter,
      vatAmount,
      declaredVat: input.declared.get(k) ?? 0,
      conversions,
    };
    country(corr.country).corrections.push(entry);
  }

  const sorted = [...countries.values()].sort((a, b) => a.country.localeCompare(b.country));
  for (const c of sorted) {
    c.supplies.sort(
      (a, b) =>
        a.supplyType.localeCompare(b.supplyType) || b.vatRate - a.vatRate || a.rateType.localeCompare(b.rateType),
    );
    for (const s of c.supplies) s.conversions.sort((a, b) => a.currency.localeCompare(b.currency));
    c.corrections.sort((a, b) => compareQuarters(a, b));
    c.vatTotal = c.supplies.reduce((s, x) => s + x.vatAmount, 0);
    c.correctionsTotal = c.corrections.reduce((s, x) => s + x.vatAmount, 0);
    c.balance = c.vatTotal + c.correctionsTotal;
  }

  const excluded = sumBy(
    input.lines
      .filter((g) => !(g.decision === OSS_DECISION && g.taxCountry !== null))
      .map((g) => ({
        decision: g.decision as TaxDecision,
        currency: g.currency,
        net: g.net,
        tax: g.tax,
        lines: g.lines,
      })),
    (e) => `${e.decision}|${e.currency}`,
    addLines,
  );

  return {
    ...input.echo,
    eurRates: input.eur.used(),
    year: input.quarter.year,
    quarter: input.quarter.quarter,
    memberStateOfIdentification: input.settings.homeCountry ? vatCountry(input.settings.homeCountry) : null,
    vatId: input.settings.vatId,
    countries: sorted,
    totals: {
      taxableAmount: sorted.reduce((s, c) => s + c.supplies.reduce((t, x) => t + x.taxableAmount, 0), 0),
      vatAmount: sorted.reduce((s, c) => s + c.vatTotal, 0),
      correctionsTotal: sorted.reduce((s, c) => s + c.correctionsTotal, 0),
      balance: sorted.reduce((s, c) => s + c.balance, 0),
    },
    excluded: excluded.sort((a, b) => a.decision.localeCompare(b.decision) || a.currency.localeCompare(b.currency)),
  };
}

/** The figures behind the return: OSS lines per currency before conversion, and each correction entry. */
export function buildVatOssDetails(input: OssInput): VatOssDetailsReport {
  const data = ossLineRows(input.lines)
    .map((r) => ({ ...r, eur: input.eur.amounts(r.currency, r) }))
    .sort(
      (a, b) =>
        a.country.localeCompare(b.country) ||
        a.supplyType.localeCompare(b.supplyType) ||
        b.vatRate - a.vatRate ||
        a.currency.localeCompare(b.currency),
    );
  const corrections = input.corrections
    .map((c) => ({
      recordId: c.recordId,
      correctsRecordId: c.correctsRecordId,
      country: c.country,
      year: c.period.year,
      quarter: c.period.quarter,
      currency: c.currency,
      tax: c.tax,
      eurTax: input.eur.cents(c.currency, c.tax),
    }))
    .sort(
      (a, b) =>
        a.country.localeCompare(b.country) ||
        a.year - b.year ||
        a.quarter - b.quarter ||
        a.recordId.localeCompare(b.recordId),
    );
  return {
    ...input.echo,
    ...input.eur.summary(),
    year: input.quarter.year,
    quarter: input.quarter.quarter,
    data,
    corrections,
  };
}
