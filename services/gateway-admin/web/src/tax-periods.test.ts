import { describe, expect, it } from 'vitest';
import { periodBuckets } from './tax-periods';

const days = (b: ReturnType<typeof periodBuckets>) => b.map((x) => [x.startDate, x.endDate]);

describe('periods of the tax charts', () => {
  it('splits a range into its months, the first and last cut to the range', () => {
    expect(days(periodBuckets('2026-01-15', '2026-03-10'))).toEqual([
      ['2026-01-15', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
      ['2026-03-01', '2026-03-10'],
    ]);
    expect(days(periodBuckets('2026-11-01', '2026-11-27'))).toEqual([['2026-11-01', '2026-11-27']]);
  });

  it('crosses a year end, and uses quarters beyond twelve months', () => {
    expect(days(periodBuckets('2025-12-01', '2026-01-31'))).toEqual([
      ['2025-12-01', '2025-12-31'],
      ['2026-01-01', '2026-01-31'],
    ]);
    const quarters = periodBuckets('2024-02-10', '2025-05-05');
    expect(quarters.every((q) => q.quarterly)).toBe(true);
    expect(days(quarters)).toEqual([
      ['2024-02-10', '2024-03-31'],
      ['2024-04-01', '2024-06-30'],
      ['2024-07-01', '2024-09-30'],
      ['2024-10-01', '2024-12-31'],
      ['2025-01-01', '2025-03-31'],
      ['2025-04-01', '2025-05-05'],
    ]);
  });

  it('answers no period for a reversed range', () => {
    expect(periodBuckets('2026-03-01', '2026-01-01')).toEqual([]);
  });
});
