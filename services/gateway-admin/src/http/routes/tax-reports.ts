import { z, type ZodTypeAny } from 'zod';
import {
  byCountryDetailsReport,
  byCountryReport,
  currenciesReport,
  ecbRates,
  revenueByCountryReport,
  TAX_REPORT_SOURCES,
  taxReportFile,
  vatOssDetailsReport,
  vatOssReport,
  type TaxReportKind,
} from '@paymesh/contracts';
import type { AdminDeps } from '../../app/deps';
import { fileAnswer, resource, type AnyRoute, type OrgScope } from '../route-table';
import { objectId } from './common';
import { taxJson, toTax } from './tax-rpc';

/** A calendar day YYYY-MM-DD (the tax service checks it exists). */
const day = (field: string) => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date YYYY-MM-DD`);

/** `USD:1.0823,GBP:0.8421`: rates to file with (units of the currency per 1 EUR), each replacing the ECB rate the tax service keeps for its currency. */
const eurRates = z
  .string()
  .max(600)
  .regex(
    /^[A-Z]{3}:\d{1,9}(\.\d{1,9})?(,[A-Z]{3}:\d{1,9}(\.\d{1,9})?)*$/,
    'eurRates must be CUR:rate pairs separated by commas, e.g. USD:1.0823,GBP:0.8421',
  )
  .transform((v, ctx) => {
    const out: Record<string, number> = {};
    for (const pair of v.split(',')) {
      const [cur, rate] = pair.split(':') as [string, string];
      const n = Number(rate);
      if (!(n > 0) || cur in out) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `eurRates: ${cur} needs one rate above 0` });
        return z.NEVER;
      }
      out[cur] = n;
    }
    return out;
  })
  .describe(
    'Rates to convert at instead of the ECB reference rates the service keeps (by default every report converts at the ECB rate of the last day of the period, or of the next publication day), units of the currency per 1 EUR, e.g. USD:1.0823,GBP:0.8421; a currency with neither stays unconverted (VAT OSS: 422)',
  );

const filters = {
  timezone: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      'IANA zone the period days are counted in (default UTC): payments, refunds and voids fall on their day in that zone',
    ),
  source: z
    .enum(TAX_REPORT_SOURCES)
    .optional()
    .describe(
      'transactions, invoices or both (default): with both, a payment of an invoice is counted once, through the invoice',
    ),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency must be a three-letter code')
    .optional(),
  siteId: objectId('siteId').optional(),
  eurRates: eurRates.optional(),
};

const rangeQuery = z
  .object({
    startDate: day('startDate').describe('first day of the period, inclusive'),
    endDate: day('endDate').describe('last day of the period, inclusive (at most 1098 days after startDate)'),
    ...filters,
  })
  .strict();

const quarterQuery = z
  .object({
    year: z.coerce.number().int().min(2021).max(9999).describe('year of the quarter'),
    quarter: z.coerce.number().int().min(1).max(4).describe('quarter 1 to 4'),
    ...filters,
  })
  .strict();

type Query = z.infer<typeof rangeQuery> | z.infer<typeof quarterQuery>;

async function report<T>(
  deps: AdminDeps,
  org: OrgScope,
  kind: TaxReportKind,
  query: Query,
  answer: z.ZodType<T, z.ZodTypeDef, unknown>,
): Promise<T> {
  return answer.parse(await taxJson(deps, org, 'taxReport', { body: { report: kind, ...query } }));
}

/** Tax reports: scope `tax_report:read`, exports `tax_report:execute`. */
const reports = resource({ tag: 'Tax reports', scopePrefix: 'tax_report' });

interface ReportRow {
  path: string;
  kind: TaxReportKind;
  operationId: string;
  summary: string;
  query: typeof rangeQuery | typeof quarterQuery;
  response: ZodTypeAny;
}

function reportRow(r: ReportRow): AnyRoute {
  return reports({
    method: 'GET',
    path: r.path,
    operationId: r.operationId,
    summary: r.summary,
    query: r.query,
    errors: r.query === quarterQuery ? [422] : [],
    response: r.response,
    async handler({ deps, org, query }) {
      return report(deps, org, r.kind, query, r.response);
    },
  });
}

function exportRow(r: Omit<ReportRow, 'response'> & { mediaType: string }): AnyRoute {
  return reports({
    method: 'GET',
    path: r.path,
    action: 'execute',
    operationId: r.operationId,
    summary: r.summary,
    query: r.query,
    errors: r.query === quarterQuery ? [422] : [],
    response: fileAnswer,
    file: { contentType: r.mediaType },
    async handler({ deps, org, query }) {
      const file = await report(deps, org, r.kind, query, taxReportFile);
      return { bytes: Buffer.from(file.content, 'utf8'), filename: file.filename };
    },
  });
}

const CSV = 'text/csv; charset=utf-8';

const ecbRatesQuery = z
  .object({
    date: day('date')
      .optional()
      .describe(
        'the day whose rates reports use: its ECB publication, or the next publication day; omitted: the latest publication kept',
      ),
  })
  .strict();

/** The ECB reference rates reports convert at, as the tax service keeps them. */
const ecbRatesRoute: AnyRoute = reports({
  method: 'GET',
  path: '/tax/ecb-rates',
  operationId: 'getEcbRates',
  summary:
    'The ECB euro reference rates (units per EUR) reports convert figures of a day at: that day or the next publication day (404 when not published yet or not kept)',
  query: ecbRatesQuery,
  response: ecbRates,
  handler: toTax.query('getEcbRates'),
});

export const taxReportRoutes: AnyRoute[] = [
  ecbRatesRoute,
  reportRow({
    path: '/tax/reports/by-country',
    kind: 'by-country',
    operationId: 'getTaxReportByCountry',
    summary:
      'Net, tax and gross of the period per country whose VAT applies (the buyer country outside the EU) and currency, with EUR conversions',
    query: rangeQuery,
    response: byCountryReport,
  }),
  reportRow({
    path: '/tax/reports/by-country/details',
    kind: 'by-country-details',
    operationId: 'getTaxReportByCountryDetails',
    summary: 'The by-country figures split by rate, rate code, engine decision and item type',
    query: rangeQuery,
    response: byCountryDetailsReport,
  }),
  reportRow({
    path: '/tax/reports/revenue-by-country',
    kind: 'revenue-by-country',
    operationId: 'getTaxReportRevenueByCountry',
    summary: 'Revenue of the period per buyer country and currency, with sale and correction counts',
    query: rangeQuery,
    response: revenueByCountryReport,
  }),
  reportRow({
    path: '/tax/reports/currencies',
    kind: 'currencies',
    operationId: 'getTaxReportCurrencies',
    summary: 'Totals of the period per currency, with EUR conversions',
    query: rangeQuery,
    response: currenciesReport,
  }),
  reportRow({
    path: '/tax/reports/vat-oss',
    kind: 'vat-oss',
    operationId: 'getVatOssReport',
    summary:
      'The Union OSS return of a quarter in EUR at the ECB rates of its last day (or the next publication day) and the rates it used: per member state of consumption the supplies by type and rate, and corrections of earlier quarters (422 TAX_REPORT_EUR_RATE_MISSING when a currency has no rate yet)',
    query: quarterQuery,
    response: vatOssReport,
  }),
  reportRow({
    path: '/tax/reports/vat-oss/details',
    kind: 'vat-oss-details',
    operationId: 'getVatOssReportDetails',
    summary:
      'The figures behind the OSS return: per country, supply type, rate and currency, and every correction entry',
    query: quarterQuery,
    response: vatOssDetailsReport,
  }),
  exportRow({
    path: '/tax/reports/by-country/export',
    kind: 'by-country-export',
    operationId: 'exportTaxReportByCountry',
    summary: 'The by-country report as CSV (amounts as decimals of the currency)',
    query: rangeQuery,
    mediaType: CSV,
  }),
  exportRow({
    path: '/tax/reports/revenue-by-country/export',
    kind: 'revenue-by-country-export',
    operationId: 'exportTaxReportRevenueByCountry',
    summary: 'The revenue-by-country report as CSV',
    query: rangeQuery,
    mediaType: CSV,
  }),
  exportRow({
    path: '/tax/reports/vat-oss/export',
    kind: 'vat-oss-export',
    operationId: 'exportVatOssReport',
    summary: 'The OSS return as XML following the structure of the EU core VAT return message, in EUR',
    query: quarterQuery,
    mediaType: 'application/xml; charset=utf-8',
  }),
  exportRow({
    path: '/tax/reports/vat-oss/export-elster',
    kind: 'vat-oss-export-elster',
    operationId: 'exportVatOssReportElster',
    summary: 'The OSS return as the CSV the German BZSt online portal imports (version 2.0)',
    query: quarterQuery,
    mediaType: CSV,
  }),
];
