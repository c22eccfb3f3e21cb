import { NotFoundError, ValidationError } from '@paymesh/core';
import {
  DASHBOARD_MAX_DAYS,
  type DashboardCurrency,
  type DashboardPeriodPreset,
  type DashboardQuery,
  type DashboardStatusCounts,
  type DashboardView,
} from '@paymesh/contracts';
import { DateTime, IANAZone } from 'luxon';
import {
  ALL_SITES,
  DAY_MS,
  QUARTER_MS,
  addCounters,
  bucketId,
  type BucketLevel,
  type DashboardBucketDoc,
} from '../domain/dashboard';
import type { Mode, SiteDoc } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { DASHBOARD_BUCKETS, SITES, TRANSACTIONS } from '../store/collections';
import { intervalBuckets, seriesFigures, seriesIntervals } from './dashboard-series';
import { ownsSite } from './get-site';
import type { CheckoutDeps } from './deps';

const invalid = (field: string, message: string) => new ValidationError(`${field}: ${message}`, { field });

export type DashboardPeriod = DashboardView['period'];

function day(value: string, field: string): DateTime {
  const d = DateTime.fromISO(value, { zone: 'UTC' });
  if (!d.isValid || d.toISODate() !== value) throw invalid(field, `"${value}" is not a valid date YYYY-MM-DD`);
  return d;
}

/** First and last local day of a preset, `today` being the current day in the zone. */
function presetDays(preset: DashboardPeriodPreset, today: DateTime): [DateTime, DateTime] {
  switch (preset) {
    case 'today':
      return [today, today];
    case 'yesterday':
      return [today.minus({ days: 1 }), today.minus({ days: 1 })];
    case 'last_7_days':
      return [today.minus({ days: 6 }), today];
    case 'last_30_days':
      return [today.minus({ days: 29 }), today];
    case 'this_month':
      return [today.startOf('month'), today];
    case 'last_month': {
      const first = today.startOf('month').minus({ months: 1 });
      return [first, first.endOf('month').startOf('day')];
    }
    case 'this_quarter':
      return [today.startOf('quarter'), today];
    case 'this_year':
      return [today.startOf('year'), today];
  }
}

/** Start of a local day as a UTC instant, on a quarter hour (see domain/dashboard.ts). */
function dayStartAt(date: string, zone: string): number {
  const ms = DateTime.fromISO(date, { zone }).startOf('day').toMillis();
  return ms - (((ms % QUARTER_MS) + QUARTER_MS) % QUARTER_MS);
}

/** The period asked for: local days `[startDate, endDate]` in `timezone` and the instants they span (end exclusive). */
export function dashboardPeriod(
  q: Pick<DashboardQuery, 'startDate' | 'endDate' | 'period' | 'timezone'>,
  now: Date,
): DashboardPeriod {
  if (!IANAZone.isValidZone(q.timezone)) throw invalid('timezone', `"${q.timezone}" is not an IANA time zone`);
  const hasDates = q.startDate !== undefined || q.endDate !== undefined;
  if (hasDates && q.period !== undefined)
    throw invalid('period', 'give either period or startDate and endDate, not both');
  if (hasDates && (q.startDate === undefined || q.endDate === undefined)) {
    throw invalid(q.startDate === undefined ? 'startDate' : 'endDate', 'startDate and endDate go together');
  }
  let preset: DashboardPeriodPreset | null = null;
  let start: DateTime;
  let end: DateTime;
  if (q.startDate !== undefined && q.endDate !== undefined) {
    start = day(q.startDate, 'startDate');
    end = day(q.endDate, 'endDate');
  } else {
    preset = q.period ?? 'last_30_days';
    const local = DateTime.fromJSDate(now, { zone: q.timezone });
    const today = DateTime.utc(local.year, local.month, local.day);
    [start, end] = presetDays(preset, today);
  }
  if (start > end) throw invalid('startDate', 'must not be after endDate');
  if (end.diff(start, 'days').days + 1 > DASHBOARD_MAX_DAYS)
    throw invalid('endDate', `a period covers at most ${DASHBOARD_MAX_DAYS} days`);
  // Built from valid calendar days above: `toFormat` gives the same `YYYY-MM-DD` as `toISODate()`.
  const startDate = start.toFormat('yyyy-MM-dd');
  const endDate = end.toFormat('yyyy-MM-dd');
  const startAt = dayStartAt(startDate, q.timezone);
  const endAt = dayStartAt(end.plus({ days: 1 }).toFormat('yyyy-MM-dd'), q.timezone);
  if (!Number.isFinite(startAt) || !Number.isFinite(endAt) || endAt <= startAt)
    throw invalid('timezone', 'the period cannot be placed in this zone');
  return {
    preset,
    startDate,
    endDate,
    timezone: q.timezone,
    startAt: new Date(startAt).toISOString(),
    endAt: new Date(endAt).toISOString(),
  };
}

/** Quarter-hour starts in `[from, to)`, oldest first. */
function quarters(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += QUARTER_MS) out.push(t);
  return out;
}

function days(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += DAY_MS) out.push(t);
  return out;
}

const nextMonth = (t: number): number => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

function months(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t = nextMonth(t)) out.push(t);
  return out;
}

/** A bucket of a period's cover. */
export interface Segment {
  level: BucketLevel;
  start: number;
}

/**
 * The buckets covering `[startAt, endAt)` (both on quarter hours), oldest first: whole UTC months
 * inside it, whole UTC days around them (at most 30 per end) and quarter hours at both ends (at most
 * 95 per end). A year's period reads some 12 + 60 + 190 buckets at most.
 */
export function coveringBuckets(startAt: number, endAt: number): Segment[] {
  const seg =
    (level: BucketLevel) =>
    (start: number): Segment => ({ level, start });
  const firstDay = Math.ceil(startAt / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(endAt / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return quarters(startAt, endAt).map(seg('quarter'));
  const d = new Date(firstDay);
  const firstMonth = d.getUTCDate() === 1 ? firstDay : nextMonth(firstDay);
  const e = new Date(lastDay);
  const lastMonth = Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), 1);
  const middle =
    firstMonth < lastMonth
      ? [
          ...days(firstDay, firstMonth).map(seg('day')),
          ...months(firstMonth, lastMonth).map(seg('month')),
          ...days(lastMonth, lastDay).map(seg('day')),
        ]
      : days(firstDay, lastDay).map(seg('day'));
  return [
    ...quarters(startAt, firstDay).map(seg('quarter')),
    ...middle,
    ...quarters(lastDay, endAt).map(seg('quarter')),
  ];
}

/** The next finer buckets of a bucket (a month's days, a day's quarter hours). */
function children(s: Segment): Segment[] {
  if (s.level === 'month') return days(s.start, nextMonth(s.start)).map((start) => ({ level: 'day', start }));
  if (s.level === 'day') return quarters(s.start, s.start + DAY_MS).map((start) => ({ level: 'quarter', start }));
  return [];
}

interface Scope {
  organizationId: string;
  mode: Mode;
}

interface ProviderSums {
  n: number;
  paid: number;
  gross: number;
  failed: number;
}

interface CurrencySums {
  statuses: Record<string, number>;
  gross: number;
  paid: number;
  refunded: number;
  lost: number;
  providers: Map<string, ProviderSums>;
}

const STATUS_FIELDS: ReadonlyArray<[string, keyof Omit<DashboardStatusCounts, 'total'>]> = [
  ['-2', 'canceled'],
  ['-1', 'initiated'],
  ['0', 'pending'],
  ['1', 'completed'],
  ['2', 'failed'],
  ['3', 'refunded'],
  ['4', 'disputed'],
];

function statusCounts(statuses: Record<string, number>): DashboardStatusCounts {
  const out: DashboardStatusCounts = {
    total: 0,
    canceled: 0,
    initiated: 0,
    pending: 0,
    completed: 0,
    failed: 0,
    refunded: 0,
    disputed: 0,
  };
  for (const [code, name] of STATUS_FIELDS) {
    out[name] = statuses[code] ?? 0;
    out.total += out[name];
  }
  return out;
}

const ratio = (failed: number, paid: number): number | null => (failed + paid === 0 ? null : failed / (failed + paid));

/** The first `limit` providers that have transactions, ordered by `compare` (ties by key). */
function topProviders(
  sums: Map<string, ProviderSums>,
  limit: number,
  compare: (a: ProviderSums, b: ProviderSums) => number,
): Array<[string, ProviderSums]> {
  return [...sums.entries()]
    .filter(([, p]) => p.n > 0)
    .sort(([ka, a], [kb, b]) => compare(a, b) || (ka < kb ? -1 : 1))
    .slice(0, limit);
}

function provider(key: string): { providerType: string; providerId: string | null } {
  const i = key.indexOf(':');
  const type = key.slice(0, i);
  const id = key.slice(i + 1);
  return { providerType: type, providerId: id === '' ? null : id };
}

/** Counter map -> sums per currency (only `currency` when given). */
function byCurrency(counters: Record<string, number>, currency: string | undefined): Map<string, CurrencySums> {
  const out = new Map<string, CurrencySums>();
  for (const [key, value] of Object.entries(counters)) {
    if (!value) continue;
    const [cur = '', kind, name = '', field] = key.split('|');
    if (currency !== undefined && cur !== currency) continue;
    let c = out.get(cur);
    if (!c) out.set(cur, (c = { statuses: {}, gross: 0, paid: 0, refunded: 0, lost: 0, providers: new Map() }));
    if (kind === 'n') c.statuses[name] = (c.statuses[name] ?? 0) + value;
    else if (kind === 'gross' || kind === 'paid' || kind === 'refunded' || kind === 'lost') c[kind] += value;
    else if (kind === 'p') {
      let p = c.providers.get(name);
      if (!p) c.providers.set(name, (p = { n: 0, paid: 0, gross: 0, failed: 0 }));
      if (field === 'n' || field === 'paid' || field === 'gross' || field === 'failed') p[field] += value;
    }
  }
  return out;
}

/** Transactions counted in a counter map (for the selected currencies). */
function transactionsIn(counters: Record<string, number> | undefined, currency: string | undefined): number {
  if (!counters) return 0;
  let n = 0;
  for (const [key, value] of Object.entries(counters)) {
    const [cur, kind] = key.split('|');
    if (kind === 'n' && (currency === undefined || cur === currency)) n += value;
  }
  return n;
}

/**
 * The dashboard for a period: read from buckets by id (whole UTC months, days and quarter hours at
 * the ends: some 270 for a year), never from the transactions themselves; recent transactions are
 * read from the newest quarter hours that the buckets say hold enough of them (an indexed lookup
 * by creation quarter hour).
 */
export async function getDashboard(
  deps: Pick<CheckoutDeps, 'store' | 'clock'>,
  scope: Scope,
  q: DashboardQuery,
): Promise<DashboardView> {
  const period = dashboardPeriod(q, deps.clock.now());
  // A site filter names one of the caller's sites: another tenant's, a deleted or an unknown one is
  // 404 like every other foreign id (not an empty dashboard, which would hide a wrong id).
  if (
    q.siteId !== undefined &&
    !ownsSite(await deps.store.collection<SiteDoc>(SITES).get(q.siteId), scope.organizationId, scope.mode)
  ) {
    throw new NotFoundError('site not found');
  }
  const siteKey = q.siteId ?? ALL_SITES;
  const ref = (level: BucketLevel, t: number) =>
    bucketId({
      organizationId: scope.organizationId,
      mode: scope.mode,
      siteId: siteKey,
      level,
      start: new Date(t).toISOString(),
    });
  const cover = coveringBuckets(Date.parse(period.startAt), Date.parse(period.endAt));
  const buckets = deps.store.collection<DashboardBucketDoc>(DASHBOARD_BUCKETS);
  const read = new Set<string>();
  const found = new Map<string, Record<string, number>>();
  /** Bucket counters by id (missing: no transactions there); reads only ids not read before. */
  const load = async (segments: Segment[]): Promise<Map<string, Record<string, number>>> => {
    const ids = segments.map((x) => ref(x.level, x.start)).filter((id) => !read.has(id));
    if (ids.length > 0) {
      for (const id of ids) read.add(id);
      const page = await buckets.find({ id: { $in: ids } });
      for (const b of page.items) found.set(b.id, b.counters);
    }
    return found;
  };
  // The newest day's quarter hours come along: the recent transactions usually start there.
  const newest = cover.at(-1);
  const newestDayRef = newest?.level === 'month' ? children(newest).at(-1) : newest;
  const newestDay = newestDayRef && newestDayRef.level !== 'quarter' ? children(newestDayRef) : [];
  await load([...cover, ...(q.recentLimit > 0 ? newestDay : [])]);
  const totals = cover
    .map((x) => found.get(ref(x.level, x.start)))
    .filter((c): c is Record<string, number> => c !== undefined);

  const total: Record<string, number> = {};
  for (const counters of totals) addCounters(total, counters);
  const sums = byCurrency(total, q.currency);

  const allStatuses: Record<string, number> = {};
  let allPaid = 0;
  const providers = new Map<string, ProviderSums>();
  const currencies: DashboardCurrency[] = [];
  for (const [cur, c] of [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    addCounters(allStatuses, c.statuses);
    allPaid += c.paid;
    for (const [key, p] of c.providers) {
      const into = providers.get(key) ?? { n: 0, paid: 0, gross: 0, failed: 0 };
      providers.set(key, {
        n: into.n + p.n,
        paid: into.paid + p.paid,
        gross: into.gross + p.gross,
        failed: into.failed + p.failed,
      });
    }
    const counts = statusCounts(c.statuses);
    if (counts.total === 0 && c.gross === 0) continue;
    currencies.push({
      currency: cur,
      grossVolume: c.gross,
      refundedAmount: c.refunded,
      disputeLostAmount: c.lost,
      netRevenue: c.gross - c.refunded - c.lost,
      completedPayments: c.paid,
      transactionCounts: counts,
      failureRatio: ratio(counts.failed, c.paid),
      topProvidersByVolume: topProviders(
        c.providers,
        q.topLimit,
        (a, b) => b.gross - a.gross || b.paid - a.paid || b.n - a.n,
      ).map(([key, p]) => ({
        ...provider(key),
        grossVolume: p.gross,
        completedPayments: p.paid,
        transactionCount: p.n,
        failedCount: p.failed,
      })),
    });
  }
  const counts = statusCounts(allStatuses);
  const topProvidersByCount = topProviders(providers, q.topLimit, (a, b) => b.paid - a.paid || b.n - a.n).map(
    ([key, p]) => ({
      ...provider(key),
      transactionCount: p.n,
      completedPayments: p.paid,
      failedCount: p.failed,
      failureRatio: ratio(p.failed, p.paid),
    }),
  );

  const recentTransactions = q.recentLimit > 0 ? await recent(deps, scope, q, cover, found, ref, load) : [];

  // The time series: each interval a signed sum of buckets, read together by id.
  const { granularity, intervals } = seriesIntervals(
    period.startDate,
    period.endDate,
    period.timezone,
    Date.parse(period.startAt),
    Date.parse(period.endAt),
  );
  const parts = intervals.map((i) => intervalBuckets(i.start, i.end, coveringBuckets));
  await load(parts.flat().map((p) => p.bucket));
  const series = {
    granularity,
    points: intervals.map((i, n) => {
      const sum: Record<string, number> = {};
      for (const { bucket, sign } of parts[n] ?? []) {
        const counters = found.get(ref(bucket.level, bucket.start));
        if (!counters) continue;
        for (const [key, value] of Object.entries(counters)) sum[key] = (sum[key] ?? 0) + sign * value;
      }
      return {
        start: new Date(i.start).toISOString(),
        end: new Date(i.end).toISOString(),
        label: i.label,
        currencies: seriesFigures(sum, q.currency),
      };
    }),
  };
  return {
    period,
    mode: scope.mode,
    siteId: q.siteId ?? null,
    currency: q.currency ?? null,
    transactionCounts: counts,
    failureRatio: ratio(counts.failed, allPaid),
    currencies,
    topProvidersByCount,
    recentTransactions,
    series,
  };
}

/**
 * The newest `recentLimit` transactions of the period: walks the period's buckets backwards and
 * picks the newest quarter hours that together hold at least that many; a month or day that holds
 * some is opened (its days or quarter hours read by id) only when it is reached. Then one query
 * by creation quarter hour (indexed) returns them.
 */
async function recent(
  deps: Pick<CheckoutDeps, 'store'>,
  scope: Scope,
  q: DashboardQuery,
  cover: Segment[],
  found: Map<string, Record<string, number>>,
  ref: (level: BucketLevel, t: number) => string,
  load: (segments: Segment[]) => Promise<Map<string, Record<string, number>>>,
): Promise<DashboardView['recentTransactions']> {
  const need = q.recentLimit;
  const chosen: number[] = [];
  let have = 0;
  const walk = async (segments: Segment[], counters: Map<string, Record<string, number>>): Promise<void> => {
    for (const s of [...segments].reverse()) {
      if (have >= need) return;
      const n = transactionsIn(counters.get(ref(s.level, s.start)), q.currency);
      if (n === 0) continue;
      if (s.level === 'quarter') {
        chosen.push(s.start);
        have += n;
      } else {
        const finer = children(s);
        await walk(finer, await load(finer));
      }
    }
  };
  await walk(cover, found);
  if (chosen.length === 0) return [];
  const filter: Record<string, string | null | { $in: string[] }> = {
    organizationId: scope.organizationId,
    mode: scope.mode,
    createdQuarter: { $in: chosen.map((t) => new Date(t).toISOString()) },
    deletedAt: null,
  };
  if (q.siteId) filter.siteId = q.siteId;
  if (q.currency) filter.currency = q.currency;
  const page = await deps.store
    .collection<TransactionDoc>(TRANSACTIONS)
    .find(filter, { sort: { createdAt: -1 }, limit: need });
  return page.items.map((t) => ({
    id: t.id,
    siteId: t.siteId,
    status: t.status,
    amount: t.amount,
    currency: t.currency,
    providerId: t.providerId,
    providerType: t.providerType,
    externalReference: t.externalReference,
    createdAt: t.createdAt,
  }));
}
