import { describe, expect, it } from 'vitest';
import { cycleDateOf, nextCycleDates } from './recurring-cycles';

describe('recurring cycle dates (shared by the recurring service and the dashboard)', () => {
  it('a month-end start never drifts: Jan 31, Feb 28 (29 in a leap year), Mar 31, Apr 30', () => {
    expect(nextCycleDates('2027-01-31', { unit: 'month', count: 1 }, 4)).toEqual([
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
    ]);
    expect(nextCycleDates('2028-01-31', { unit: 'month', count: 1 }, 2)).toEqual(['2028-01-31', '2028-02-29']);
    expect(cycleDateOf('2027-11-30', { unit: 'month', count: 3 }, 1)).toBe('2028-02-29');
    expect(cycleDateOf('2028-02-29', { unit: 'year', count: 1 }, 1)).toBe('2029-02-28');
    expect(cycleDateOf('2027-12-27', { unit: 'week', count: 1 }, 1)).toBe('2028-01-03');
  });

  it('nothing to show while the form holds no calendar date or no positive interval', () => {
    expect(nextCycleDates('', { unit: 'month', count: 1 }, 4)).toEqual([]);
    expect(nextCycleDates('2027-02-30', { unit: 'month', count: 1 }, 4)).toEqual([]);
    expect(nextCycleDates('2027-01-31', { unit: 'month', count: 0 }, 4)).toEqual([]);
    expect(() => cycleDateOf('2027-13-01', { unit: 'day', count: 1 }, 1)).toThrow(RangeError);
  });
});
