import { describe, expect, it } from 'vitest';
import { candidateDays, ecbRateId, publicationFor, type EcbDay } from './ecb-rates';

const pub = (date: string, USD = 1.08): EcbDay => ({ date, rates: { USD } });
/** Publications around the end of Q3 2026 and the year end, as the ECB calendar has them. */
const kept = [
  pub('2026-09-29'),
  pub('2026-09-30', 1.0823),
  pub('2026-10-01'),
  pub('2026-10-02'),
  pub('2026-10-05'),
  pub('2026-12-24'),
  pub('2026-12-28', 1.11),
];

describe('the OSS rate date: the last day of the period, or the next publication day', () => {
  it('a day with a publication takes it', () => {
    expect(publicationFor('2026-09-30', kept, null, '2026-11-27')).toEqual({
      kind: 'published',
      day: '2026-09-30',
      publication: pub('2026-09-30', 1.0823),
    });
  });

  it('a weekend or a holiday takes the next publication day', () => {
    // Saturday 3 October -> Monday 5 October.
    expect(publicationFor('2026-10-03', kept, null, '2026-11-27')).toMatchObject({
      kind: 'published',
      publication: { date: '2026-10-05' },
    });
    // 25 and 26 December and the weekend after -> Monday 28 December.
    expect(publicationFor('2026-12-25', kept, null, '2027-01-10')).toMatchObject({
      kind: 'published',
      publication: { date: '2026-12-28', rates: { USD: 1.11 } },
    });
  });

  it('a day with no publication on or after it yet is not published yet', () => {
    // The quarter's last day is still ahead.
    expect(publicationFor('2026-12-31', kept, '2026-11-27', '2026-11-27')).toEqual({
      kind: 'not_published',
      day: '2026-12-31',
      latest: '2026-11-27',
    });
    // Today, before the ECB published.
    expect(publicationFor('2026-11-27', [], '2026-11-26', '2026-11-27')).toMatchObject({ kind: 'not_published' });
    // Past, published by now but not fetched yet (the newest kept day is older).
    expect(publicationFor('2026-11-25', [], '2026-11-24', '2026-11-27')).toMatchObject({
      kind: 'not_published',
      latest: '2026-11-24',
    });
    // A weekend whose Monday is not out yet.
    expect(publicationFor('2026-11-28', [], '2026-11-27', '2026-11-29')).toMatchObject({ kind: 'not_published' });
  });

  it('a past day the service has no publication for is not kept, and a publication weeks later is not the next one', () => {
    expect(publicationFor('2026-03-31', [], '2026-11-27', '2026-11-27')).toEqual({
      kind: 'not_kept',
      day: '2026-03-31',
      latest: '2026-11-27',
    });
    expect(publicationFor('2026-03-31', [], null, '2026-11-27')).toMatchObject({ kind: 'not_kept', latest: null });
    expect(publicationFor('2026-09-10', [pub('2026-09-29')], '2026-11-27', '2026-11-27')).toMatchObject({
      kind: 'not_kept',
    });
  });

  it('candidate days are the day and the week after it; ids are one per day', () => {
    expect(candidateDays('2026-12-31')).toEqual([
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
      '2027-01-03',
      '2027-01-04',
      '2027-01-05',
      '2027-01-06',
      '2027-01-07',
    ]);
    expect(ecbRateId('2026-09-30')).toMatch(/^[0-9a-f]{24}$/);
    expect(ecbRateId('2026-09-30')).toBe(ecbRateId('2026-09-30'));
    expect(ecbRateId('2026-09-30')).not.toBe(ecbRateId('2026-10-01'));
  });
});
