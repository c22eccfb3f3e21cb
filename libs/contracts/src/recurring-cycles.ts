/**
 * The calendar rule of recurring schedules, shared by the recurring service (which bills by it)
 * and the dashboard (which shows the next cycle dates as the merchant types). Pure and free of
 * imports, so the browser bundle can take it as it is.
 *
 * Cycle k (0-based) falls on `startDate + k * interval`, always counted from the start date, so a
 * month-end start never drifts: Jan 31 + 1 month = Feb 28 (29 in a leap year), + 2 months = Mar 31,
 * + 3 months = Apr 30. A month or year step that lands past the end of a shorter month takes that
 * month's last day (Feb 29 + 1 year = Feb 28).
 */

export type CycleUnit = 'day' | 'week' | 'month' | 'year';

export interface CycleInterval {
  unit: CycleUnit;
  /** Every `count` units, at least 1. */
  count: number;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** The parts of a real calendar date `YYYY-MM-DD`, or null. */
function partsOf(date: string): { y: number; m0: number; d: number } | null {
  const m = DATE_RE.exec(date);
  if (!m) return null;
  const y = Number(m[1]);
  const m0 = Number(m[2]) - 1;
  const d = Number(m[3]);
  if (m0 < 0 || m0 > 11 || d < 1 || d > daysInMonth(y, m0)) return null;
  return { y, m0, d };
}

const iso = (t: Date): string => t.toISOString().slice(0, 10);

/** The date of cycle `k` (0 = the start date); RangeError for a date that is not a calendar date. */
export function cycleDateOf(startDate: string, interval: CycleInterval, k: number): string {
  if (!Number.isInteger(k) || k < 0) throw new RangeError('cycle must be a non-negative integer');
  const p = partsOf(startDate);
  if (!p) throw new RangeError(`not a calendar date: ${startDate}`);
  const n = interval.count * k;
  if (interval.unit === 'day' || interval.unit === 'week') {
    return iso(new Date(Date.UTC(p.y, p.m0, p.d + (interval.unit === 'week' ? 7 * n : n))));
  }
  const months = p.m0 + (interval.unit === 'year' ? 12 * n : n);
  const y = p.y + Math.floor(months / 12);
  const m0 = ((months % 12) + 12) % 12;
  return iso(new Date(Date.UTC(y, m0, Math.min(p.d, daysInMonth(y, m0)))));
}

/** The dates of the first `count` cycles from the start date; empty while the start is not a calendar date. */
export function nextCycleDates(startDate: string, interval: CycleInterval, count: number): string[] {
  if (!partsOf(startDate) || !Number.isInteger(interval.count) || interval.count < 1) return [];
  return Array.from({ length: count }, (_, k) => cycleDateOf(startDate, interval, k));
}
