import type { DashboardSeries } from '@paymesh/contracts';
import { DateTime } from 'luxon';
import { DAY_MS, QUARTER_MS, type BucketLevel } from '../domain/dashboard';

/** Longest period (days) shown by the hour and by the day. */
const HOURLY_MAX_DAYS = 2;
const DAILY_MAX_DAYS = 92;
const HOUR_MS = 4 * QUARTER_MS;

/** A bucket to read: level and start (ms, UTC). */
export interface SeriesBucket {
  level: BucketLevel;
  start: number;
}

/** One interval of the series: `[start, end)` in ms and its local label. */
export interface SeriesInterval {
  start: number;
  end: number;
  label: string;
}

/**
 * The intervals of a period: local hours (up to 2 days), local days (up to 92 days) or local months
 * (beyond; the first and last may be partial). `startAt`/`endAt` are local midnights in `zone`.
 */
export function seriesIntervals(
  startDate: string,
  endDate: string,
  zone: string,
  startAt: number,
  endAt: number,
): { granularity: DashboardSeries['granularity']; intervals: SeriesInterval[] } {
  const first = DateTime.fromISO(startDate, { zone });
  const last = DateTime.fromISO(endDate, { zone });
  const days = Math.round(last.diff(first, 'days').days) + 1;
  const intervals: SeriesInterval[] = [];
  if (days <= HOURLY_MAX_DAYS) {
    for (let t = startAt; t < endAt; t += HOUR_MS) {
      intervals.push({
        start: t,
        end: Math.min(t + HOUR_MS, endAt),
        label: DateTime.fromMillis(t, { zone }).toFormat("yyyy-MM-dd'T'HH:mm"),
      });
    }
    return { granularity: 'hour', intervals };
  }
  const monthly = days > DAILY_MAX_DAYS;
  let cursor = first.startOf('day');
  let start = startAt;
  while (start < endAt) {
    const next = monthly ? cursor.startOf('month').plus({ months: 1 }) : cursor.plus({ days: 1 });
    const end = Math.min(quarterFloor(next.startOf('day').toMillis()), endAt);
    intervals.push({ start, end, label: monthly ? cursor.toFormat('yyyy-MM') : cursor.toFormat('yyyy-MM-dd') });
    cursor = next;
    start = end;
  }
  return { granularity: monthly ? 'month' : 'day', intervals };
}

const quarterFloor = (ms: number): number => ms - (((ms % QUARTER_MS) + QUARTER_MS) % QUARTER_MS);
const nearestMidnight = (ms: number): number => Math.round(ms / DAY_MS) * DAY_MS;

/** A signed sum of buckets. */
export type SignedBuckets = Array<{ bucket: SeriesBucket; sign: 1 | -1 }>;

function quarterRange(from: number, to: number, sign: 1 | -1): SignedBuckets {
  const out: SignedBuckets = [];
  for (let t = from; t < to; t += QUARTER_MS) out.push({ bucket: { level: 'quarter', start: t }, sign });
  return out;
}

/**
 * The buckets whose signed sum is the interval `[start, end)` (both on quarter hours): the whole UTC
 * days or months between the UTC midnights nearest to each end (from `cover`), plus or minus the
 * quarter hours between each end and its midnight. A local day in any zone thus costs its day
 * bucket and at most 2 × 48 quarter hours (4 for a zone one hour off UTC), never 96.
 */
export function intervalBuckets(
  start: number,
  end: number,
  cover: (from: number, to: number) => SeriesBucket[],
): SignedBuckets {
  if (end - start <= HOUR_MS * 2) return quarterRange(start, end, 1);
  const ms = nearestMidnight(start);
  const me = nearestMidnight(end);
  const out: SignedBuckets = ms < me ? cover(ms, me).map((bucket) => ({ bucket, sign: 1 as const })) : [];
  // end side: add [me, end) or take away [end, me); start side the other way round.
  out.push(...(end >= me ? quarterRange(me, end, 1) : quarterRange(end, me, -1)));
  out.push(...(start >= ms ? quarterRange(ms, start, -1) : quarterRange(start, ms, 1)));
  return out;
}

/** Per-currency figures of a counter map (see domain/dashboard.ts for the keys). */
export function seriesFigures(
  counters: Record<string, number>,
  currency: string | undefined,
): DashboardSeries['points'][number]['currencies'] {
  const by = new Map<string, { gross: number; refunded: number; lost: number; paid: number; n: number }>();
  for (const [key, value] of Object.entries(counters)) {
    if (!value) continue;
    const [cur, kind] = key.split('|');
    if (!cur || (currency !== undefined && cur !== currency)) continue;
    let c = by.get(cur);
    if (!c) by.set(cur, (c = { gross: 0, refunded: 0, lost: 0, paid: 0, n: 0 }));
    if (kind === 'n') c.n += value;
    else if (kind === 'gross' || kind === 'refunded' || kind === 'lost' || kind === 'paid') c[kind] += value;
  }
  return [...by.entries()]
    .filter(([, c]) => c.n !== 0 || c.gross !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([cur, c]) => ({
      currency: cur,
      grossVolume: c.gross,
      netRevenue: c.gross - c.refunded - c.lost,
      completedPayments: c.paid,
      transactionCount: c.n,
    }));
}
