import { describe, expect, it } from 'vitest';
import {
  addDays,
  cadenceOf,
  cycleDate,
  dayIn,
  dayStartsAt,
  firstCycleAfter,
  isCalendarDate,
  isDue,
  isTimeZone,
  type Interval,
} from './schedule-dates';

const every = (count: number, unit: Interval['unit']): Interval => ({ count, unit });

describe('cycleDate', () => {
  it.each([
    // month ends never drift: every cycle is computed from the start date
    ['2027-01-31', every(1, 'month'), 1, '2027-02-28'],
    ['2027-01-31', every(1, 'month'), 2, '2027-03-31'],
    ['2027-01-31', every(1, 'month'), 3, '2027-04-30'],
    ['2027-01-31', every(1, 'month'), 4, '2027-05-31'],
    ['2028-01-31', every(1, 'month'), 1, '2028-02-29'],
    ['2027-01-30', every(1, 'month'), 1, '2027-02-28'],
    ['2027-08-31', every(2, 'month'), 3, '2028-02-29'],
    ['2027-03-31', every(3, 'month'), 1, '2027-06-30'],
    ['2027-03-31', every(3, 'month'), 2, '2027-09-30'],
    ['2027-03-31', every(3, 'month'), 3, '2027-12-31'],
    // leap days
    ['2028-02-29', every(1, 'year'), 1, '2029-02-28'],
    ['2028-02-29', every(1, 'year'), 4, '2032-02-29'],
    ['2028-02-29', every(1, 'month'), 1, '2028-03-29'],
    ['2028-02-29', every(12, 'month'), 1, '2029-02-28'],
    // weeks and days
    ['2027-12-27', every(1, 'week'), 1, '2028-01-03'],
    ['2027-12-27', every(2, 'week'), 5, '2028-03-06'],
    ['2028-02-28', every(1, 'day'), 1, '2028-02-29'],
    ['2027-02-28', every(1, 'day'), 1, '2027-03-01'],
    ['2027-01-01', every(10, 'day'), 36, '2027-12-27'],
    // years
    ['2027-06-15', every(1, 'year'), 3, '2030-06-15'],
    ['2027-06-15', every(2, 'year'), 0, '2027-06-15'],
  ])('%s %o cycle %i -> %s', (start, interval, k, expected) => {
    expect(cycleDate(start, interval, k)).toBe(expected);
  });

  it('refuses a negative or fractional cycle and a malformed date', () => {
    expect(() => cycleDate('2027-01-01', every(1, 'month'), -1)).toThrow(RangeError);
    expect(() => cycleDate('2027-01-01', every(1, 'month'), 1.5)).toThrow(RangeError);
    expect(() => cycleDate('2027-02-30', every(1, 'month'), 1)).toThrow(RangeError);
  });
});

describe('time zones', () => {
  it('a date begins earlier in Pacific/Auckland than in UTC', () => {
    expect(dayStartsAt('2027-03-01', 'UTC')).toBe('2027-03-01T00:00:00.000Z');
    // NZDT (UTC+13) on 1 March
    expect(dayStartsAt('2027-03-01', 'Pacific/Auckland')).toBe('2027-02-28T11:00:00.000Z');
    // NZST (UTC+12) in July
    expect(dayStartsAt('2027-07-01', 'Pacific/Auckland')).toBe('2027-06-30T12:00:00.000Z');
  });

  it.each([
    ['2027-02-28T10:59:59.999Z', 'Pacific/Auckland', false],
    ['2027-02-28T11:00:00.000Z', 'Pacific/Auckland', true],
    ['2027-02-28T11:00:00.000Z', 'UTC', false],
    ['2027-03-01T00:00:00.000Z', 'UTC', true],
    ['2027-03-01T07:59:59.000Z', 'America/Los_Angeles', false],
    ['2027-03-01T08:00:00.000Z', 'America/Los_Angeles', true],
  ])('at %s a schedule due on 2027-03-01 in %s is due: %s', (now, zone, due) => {
    expect(isDue('2027-03-01', zone, new Date(now))).toBe(due);
  });

  it('reads the day of an instant in a zone', () => {
    expect(dayIn(new Date('2027-02-28T11:00:00.000Z'), 'Pacific/Auckland')).toBe('2027-03-01');
    expect(dayIn(new Date('2027-02-28T11:00:00.000Z'), 'UTC')).toBe('2027-02-28');
  });

  it('knows zone names and calendar dates', () => {
    expect(isTimeZone('Pacific/Auckland')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2027-02-29')).toBe(false);
    expect(isCalendarDate('2027-2-1')).toBe(false);
  });
});

describe('firstCycleAfter', () => {
  it.each([
    ['2027-01-31', every(1, 'month'), '2027-01-30', 0],
    ['2027-01-31', every(1, 'month'), '2027-01-31', 1],
    ['2027-01-31', every(1, 'month'), '2027-02-28', 2],
    ['2027-01-31', every(1, 'month'), '2027-03-30', 2],
    ['2027-01-01', every(1, 'week'), '2027-12-31', 53],
    ['2027-01-01', every(1, 'day'), '2027-01-01', 1],
    ['2027-01-01', every(1, 'year'), '2035-06-01', 9],
  ])('%s %o after %s -> cycle %i', (start, interval, date, k) => {
    const got = firstCycleAfter(start, interval, date);
    expect(got).toBe(k);
    expect(cycleDate(start, interval, got) > date).toBe(true);
    if (got > 0) expect(cycleDate(start, interval, got - 1) <= date).toBe(true);
  });
});

describe('cadence and days', () => {
  it('phrases the interval', () => {
    expect(cadenceOf(every(1, 'month'))).toBe('every 1 month');
    expect(cadenceOf(every(2, 'week'))).toBe('every 2 weeks');
  });
  it('adds days across month ends', () => {
    expect(addDays('2028-02-28', 2)).toBe('2028-03-01');
  });
});
