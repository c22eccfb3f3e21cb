import { DateTime } from 'luxon';
import { cycleDateOf } from '@paymesh/contracts';

/**
 * Calendar arithmetic of recurring schedules. Pure: no clock, no I/O.
 *
 * Cycle k (0-based) falls on `startDate + k * interval`, always computed from the start date, so a
 * month-end start never drifts: Jan 31 + 1 month = Feb 28 (29 in a leap year), + 2 months = Mar 31,
 * + 3 months = Apr 30. Dates are calendar days in the schedule's IANA time zone; a cycle is due from
 * the first instant of its day in that zone.
 */

export const INTERVAL_UNITS = ['day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

export interface Interval {
  unit: IntervalUnit;
  /** Every `count` units, at least 1. */
  count: number;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `s` is a real calendar date `YYYY-MM-DD`. */
export function isCalendarDate(s: string): boolean {
  if (!DATE_RE.test(s)) return false;
  return DateTime.fromISO(s, { zone: 'UTC' }).isValid;
}

/** Whether `zone` is an IANA time zone name this runtime knows. */
export function isTimeZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}

function parseDate(date: string): DateTime {
  const d = DateTime.fromISO(date, { zone: 'UTC' });
  if (!DATE_RE.test(date) || !d.isValid) throw new RangeError(`not a calendar date: ${date}`);
  return d;
}

/** The date of cycle `k` (0 = the start date): the rule the dashboard shows too (`@paymesh/contracts`). */
export function cycleDate(startDate: string, interval: Interval, k: number): string {
  parseDate(startDate);
  return cycleDateOf(startDate, interval, k);
}

/** The instant a calendar day begins in a time zone (ISO, UTC). */
export function dayStartsAt(date: string, timeZone: string): string {
  const d = DateTime.fromISO(date, { zone: timeZone }).startOf('day');
  if (!d.isValid) throw new RangeError(`not a calendar date in ${timeZone}: ${date}`);
  return d.toUTC().toISO() ?? '';
}

/** The calendar day an instant falls on in a time zone. */
export function dayIn(instant: Date, timeZone: string): string {
  return DateTime.fromJSDate(instant, { zone: timeZone }).toISODate() ?? '';
}

/** Whether a calendar date has begun at `now` in the time zone. */
export function isDue(date: string, timeZone: string, now: Date): boolean {
  return dayStartsAt(date, timeZone) <= now.toISOString();
}

/** The first cycle whose date is strictly after `date`. */
export function firstCycleAfter(startDate: string, interval: Interval, date: string): number {
  // Bounded walk: an estimate from the unit length, then a step either way.
  const approxDays = { day: 1, week: 7, month: 28, year: 365 }[interval.unit] * interval.count;
  const diff = Math.floor(parseDate(date).diff(parseDate(startDate), 'days').days);
  let k = Math.max(0, Math.floor(diff / approxDays) - 1);
  while (k > 0 && cycleDate(startDate, interval, k - 1) > date) k -= 1;
  while (cycleDate(startDate, interval, k) <= date) k += 1;
  return k;
}

/** Human cadence: `every 1 month`, `every 2 weeks`. */
export function cadenceOf(interval: Interval): string {
  return `every ${interval.count} ${interval.unit}${interval.count === 1 ? '' : 's'}`;
}

/** The calendar day `days` after `date`. */
export function addDays(date: string, days: number): string {
  return parseDate(date).plus({ days }).toISODate() ?? date;
}
