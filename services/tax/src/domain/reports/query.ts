import type { TaxReportPeriod, TaxReportSource } from '@paymesh/contracts';
import type { AggregateRow, AggregateSpec, Filter } from '@paymesh/store';
import { daysBetween, shiftDay } from './period';

/**
 * What a report asks the store: one filter per slice of the ledger, each served by the
 * (organization, mode, taxPointDate) index. Days are sent as a list (`$in`), which the index
 * answers directly; instants are compared on `taxPointAt` within the days they can fall on.
 */

export interface ReportScope {
  organizationId: string;
  mode: 'live' | 'test';
  period: TaxReportPeriod;
  source: TaxReportSource;
  currency?: string | undefined;
  siteId?: string | undefined;
}

/** Entries of the chosen source. `both` leaves out payments of invoices: the invoice's entries count them. */
function sourceFilter(source: TaxReportSource): Filter {
  if (source === 'invoices') return { sourceKind: { $in: ['invoice', 'credit_note'] } };
  if (source === 'transactions') return { sourceKind: 'transaction' };
  return { invoicePayment: { $ne: true } };
}

/**
 * The period as disjoint slices of tax-point days. Any zone's day differs from the UTC day by at
 * most one, so every entry of a UTC day strictly inside the period belongs to it, whatever its
 * kind: that slice, the bulk of the rows, is read once with no further condition. Only the edge
 * days need a second look: instants compared with the period's bounds, and issue days that are
 * the first or last day.
 */
function timeSlices(period: TaxReportPeriod): Filter[] {
  const inner =
    period.startDate < period.endDate ? daysBetween(shiftDay(period.startDate, 1), shiftDay(period.endDate, -1)) : [];
  const innerSet = new Set(inner);
  const edgeUtcDays = [
    ...new Set([shiftDay(period.startDate, -1), period.startDate, period.endDate, shiftDay(period.endDate, 1)]),
  ].filter((d) => !innerSet.has(d));
  const edgeDays = [...new Set([period.startDate, period.endDate])];
  return [
    ...(inner.length ? [{ taxPointDate: { $in: inner } }] : []),
    { taxPointDate: { $in: edgeUtcDays }, taxPointAt: { $gte: period.startAt, $lt: period.endAt } },
    { taxPointDate: { $in: edgeDays }, taxPointAt: null },
  ];
}

/** The filters whose union is the report's entries (disjoint, so their sums add up). */
export function reportFilters(scope: ReportScope, extra: Filter = {}): Filter[] {
  const base: Filter = {
    organizationId: scope.organizationId,
    mode: scope.mode,
    ...(scope.currency ? { currency: scope.currency } : {}),
    ...(scope.siteId ? { siteId: scope.siteId } : {}),
    ...sourceFilter(scope.source),
    ...extra,
  };
  return timeSlices(scope.period).map((time) => ({ ...base, ...time }));
}

/** Ledger lines grouped by what the by-country report shows. */
export const COUNTRY_SPEC: AggregateSpec = {
  unwind: 'lines',
  groupBy: ['lines.taxCountry', 'buyer.country', 'currency'],
  sum: ['lines.net', 'lines.tax'],
};

/** Ledger lines grouped by everything a line report shows. */
export const LINE_SPEC: AggregateSpec = {
  unwind: 'lines',
  groupBy: [
    'lines.taxCountry',
    'buyer.country',
    'currency',
    'lines.taxRate',
    'lines.taxRateCode',
    'lines.rateType',
    'lines.decision',
    'lines.itemType',
  ],
  sum: ['lines.net', 'lines.tax'],
};

/** Entries grouped by buyer country, currency and entry type. */
export const ENTRY_SPEC: AggregateSpec = {
  groupBy: ['buyer.country', 'currency', 'entryType'],
  sum: ['totals.net', 'totals.tax', 'totals.gross'],
};

/** One line group as the builders read it. */
export interface LineGroup {
  taxCountry: string | null;
  buyerCountry: string;
  currency: string;
  taxRate: number;
  taxRateCode: string;
  rateType: string | null;
  decision: string;
  itemType: string;
  net: number;
  tax: number;
  lines: number;
}

export interface EntryGroup {
  buyerCountry: string;
  currency: string;
  entryType: string;
  net: number;
  tax: number;
  gross: number;
  entries: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Adds up rows of several slices that share a key. */
export function mergeRows(rows: AggregateRow[]): AggregateRow[] {
  const byKey = new Map<string, AggregateRow>();
  for (const row of rows) {
    const k = JSON.stringify(Object.entries(row.key).sort(([a], [b]) => a.localeCompare(b)));
    const seen = byKey.get(k);
    if (!seen) byKey.set(k, { key: row.key, sums: { ...row.sums }, count: row.count });
    else {
      for (const [path, v] of Object.entries(row.sums)) seen.sums[path] = (seen.sums[path] ?? 0) + v;
      seen.count += row.count;
    }
  }
  return [...byKey.values()];
}

/** Line groups of LINE_SPEC or COUNTRY_SPEC rows (the fields COUNTRY_SPEC leaves out read as empty). */
export function lineGroups(rows: AggregateRow[]): LineGroup[] {
  return mergeRows(rows).map((r) => ({
    taxCountry: strOrNull(r.key['lines.taxCountry']),
    buyerCountry: str(r.key['buyer.country']),
    currency: str(r.key.currency),
    taxRate: Number(r.key['lines.taxRate'] ?? 0),
    taxRateCode: str(r.key['lines.taxRateCode']),
    rateType: strOrNull(r.key['lines.rateType']),
    decision: str(r.key['lines.decision']),
    itemType: str(r.key['lines.itemType']),
    net: r.sums['lines.net'] ?? 0,
    tax: r.sums['lines.tax'] ?? 0,
    lines: r.count,
  }));
}

export function entryGroups(rows: AggregateRow[]): EntryGroup[] {
  return mergeRows(rows).map((r) => ({
    buyerCountry: str(r.key['buyer.country']),
    currency: str(r.key.currency),
    entryType: str(r.key.entryType),
    net: r.sums['totals.net'] ?? 0,
    tax: r.sums['totals.tax'] ?? 0,
    gross: r.sums['totals.gross'] ?? 0,
    entries: r.count,
  }));
}
