import { describe, expect, it } from 'vitest';
import { isPublicationDay, lastPublicationDays } from './calendar';
import { ecbRound, seededRate } from './rates';

describe('sandbox calendar and rates', () => {
  it('publishes on weekdays except 1 January, 25 and 26 December', () => {
    expect(['2026-11-27', '2026-12-24', '2026-12-31', '2027-01-04'].map(isPublicationDay)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['2026-11-28', '2026-11-29', '2026-12-25', '2027-01-01'].map(isPublicationDay)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(lastPublicationDays('2026-11-30', 3)).toEqual(['2026-11-30', '2026-11-27', '2026-11-26']);
    expect(lastPublicationDays('2026-11-29', 1)).toEqual(['2026-11-27']);
  });

  it('rates are rounded as the ECB publishes them and stable per currency and day', () => {
    expect([ecbRound(1.082345), ecbRound(162.5149), ecbRound(17512.3), ecbRound(0.846612)]).toEqual([
      1.0823, 162.51, 17512, 0.8466,
    ]);
    expect(seededRate('USD', '2026-09-30')).toBe(seededRate('USD', '2026-09-30'));
    expect(Math.abs(seededRate('USD', '2026-09-30') / 1.08 - 1)).toBeLessThanOrEqual(0.0101);
  });
});
