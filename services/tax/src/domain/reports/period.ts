import { ValidationError } from '@paymesh/core';
import type { TaxReportPeriod } from '@paymesh/contracts';
import { DateTime, IANAZone } from 'luxon';

/**
 * Report periods: calendar days counted in an IANA zone. An entry whose tax point is an instant
 * (payment, refund, void) belongs to the day that instant falls on in the zone; an entry whose tax
 * point is a day (invoice or credit-note issue date) belongs to that day whatever the zone.
 */

/** Longest period a report covers (days): three years and a leap day, the OSS correction window. */
export const MAX_PERIOD_DAYS = 3 * 366;

const invalid = (field: string, message: string) => new ValidationError(`${field}: ${message}`, { field });

function day(value: string, field: string): DateTime {
  const d = DateTime.fromISO(value, { zone: 'UTC' });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || !d.isValid || d.toISODate() !== value)
    throw invalid(field, `"${value}" is not a valid date YYYY-MM-DD`);
  return d;
}

export function assertZone(timezone: string): void {
  if (!IANAZone.isValidZone(timezone)) throw invalid('timezone', `"${timezone}" is not an IANA time zone`);
}

/** The period `[startDate, endDate]` in `timezone`, with the instants it spans (end exclusive). */
export function periodOf(startDate: string, endDate: string, timezone: string): TaxReportPeriod {
  assertZone(timezone);
  const start = day(startDate, 'startDate');
  const end = day(endDate, 'endDate');
  if (start > end) throw invalid('startDate', 'must not be after endDate');
  if (end.diff(start, 'days').days + 1 > MAX_PERIOD_DAYS)
    throw invalid('endDate', `a report covers at most ${MAX_PERIOD_DAYS} days`);
  const startAt = DateTime.fromISO(startDate, { zone: timezone }).startOf('day').toUTC().toISO();
  const endAt = DateTime.fromISO(endDate, { zone: timezone }).plus({ days: 1 }).startOf('day').toUTC().toISO();
  if (!startAt || !endAt) throw invalid('timezone', 'the period cannot be placed in this zone');
  return { startDate, endDate, timezone, startAt, endAt };
}

/** `YYYY-MM-DD` of a date built from valid parts (`toISODate()` types a possible null). */
const ymd = (d: DateTime): string => d.toFormat('yyyy-MM-dd');

export interface Quarter {
  year: number;
  quarter: number;
}

/** The calendar quarter `year`/`quarter` as a period in `timezone`. */
export function quarterPeriod(q: Quarter, timezone: string): TaxReportPeriod {
  const first = DateTime.utc(q.year, (q.quarter - 1) * 3 + 1, 1);
  const last = first.plus({ months: 3 }).minus({ days: 1 });
  return periodOf(ymd(first), ymd(last), timezone);
}

export function quarterOfDay(isoDay: string): Quarter {
  const [y, m] = isoDay.split('-').map(Number) as [number, number];
  return { year: y, quarter: Math.floor((m - 1) / 3) + 1 };
}

export const quarterKey = (q: Quarter): string => `${q.year}-Q${q.quarter}`;
export const compareQuarters = (a: Quarter, b: Quarter): number => a.year - b.year || a.quarter - b.quarter;

/** The day an entry's tax point falls on in `timezone`. */
export function localDay(entry: { taxPointDate: string; taxPointAt?: string | null }, timezone: string): string {
  if (!entry.taxPointAt) return entry.taxPointDate;
  return DateTime.fromISO(entry.taxPointAt, { zone: 'UTC' }).setZone(timezone).toISODate() ?? entry.taxPointDate;
}

/** Every day from `from` to `to`, inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = DateTime.fromISO(to, { zone: 'UTC' });
  for (let d = DateTime.fromISO(from, { zone: 'UTC' }); d <= end; d = d.plus({ days: 1 })) out.push(ymd(d));
  return out;
}

export const shiftDay = (isoDay: string, days: number): string =>
  ymd(DateTime.fromISO(isoDay, { zone: 'UTC' }).plus({ days }));
