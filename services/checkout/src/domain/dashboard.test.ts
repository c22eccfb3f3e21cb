import { describe, expect, it } from 'vitest';
import { bucketDeltas, bucketsOf, contributionOf, countersOf, quarterStart, type TxFields } from './dashboard';
import { coveringBuckets, dashboardPeriod } from '../app/dashboard';

const tx = (over: Partial<TxFields> = {}): TxFields =>
  ({
    organizationId: 'o'.repeat(24),
    siteId: 'a'.repeat(24),
    mode: 'test',
    status: 1,
    amount: 1000,
    currency: 'EUR',
    providerId: 'b'.repeat(24),
    providerType: 'provider_a',
    deletedAt: null,
    refunds: [],
    chargebacks: [],
    createdAt: '2026-03-10T18:40:12.000Z',
    ...over,
  }) as TxFields;

describe('dashboard counters', () => {
  it('counts a completed payment in gross, a refund and a lost dispute as deductions', () => {
    const c = countersOf(
      tx({
        status: 4,
        refunds: [{ id: 'r1', amount: 300, currency: 'EUR', at: '', providerEventId: 'e' }],
        chargebacks: [
          {
            id: 'd1',
            status: 'lost',
            amount: 1000,
            currency: 'EUR',
            reason: null,
            at: '',
            updatedAt: '',
            resolvedAt: '',
          },
        ],
      }),
    );
    expect(c).toMatchObject({ 'EUR|n|4': 1, 'EUR|gross': 1000, 'EUR|paid': 1, 'EUR|refunded': 300, 'EUR|lost': 1000 });
    expect(c[`EUR|p|provider_a:${'b'.repeat(24)}|gross`]).toBe(1000);
  });

  it('counts a failed attempt without money, and a deleted transaction not at all', () => {
    expect(countersOf(tx({ status: 2 }))).toEqual({
      'EUR|n|2': 1,
      [`EUR|p|provider_a:${'b'.repeat(24)}|n`]: 1,
      [`EUR|p|provider_a:${'b'.repeat(24)}|failed`]: 1,
    });
    expect(countersOf(tx({ status: 2, deletedAt: '2026-03-11T00:00:00.000Z' }))).toEqual({});
  });

  it('a status change moves one count in all six buckets; a repeat moves nothing', () => {
    const pending = contributionOf(tx({ status: 0 }));
    const paid = contributionOf(tx({ status: 1 }));
    const deltas = bucketDeltas(pending, paid);
    expect(deltas.size).toBe(6);
    for (const { deltas: d } of deltas.values())
      expect(d).toMatchObject({ 'EUR|n|0': -1, 'EUR|n|1': 1, 'EUR|gross': 1000 });
    expect(bucketDeltas(paid, contributionOf(tx({ status: 1 }))).size).toBe(0);
    expect(bucketsOf(paid).map((b) => `${b.siteId}/${b.level}/${b.start}`)).toEqual([
      `${'a'.repeat(24)}/quarter/2026-03-10T18:30:00.000Z`,
      `${'a'.repeat(24)}/day/2026-03-10T00:00:00.000Z`,
      `${'a'.repeat(24)}/month/2026-03-01T00:00:00.000Z`,
      '*/quarter/2026-03-10T18:30:00.000Z',
      '*/day/2026-03-10T00:00:00.000Z',
      '*/month/2026-03-01T00:00:00.000Z',
    ]);
  });
});

describe('dashboard periods', () => {
  it('places local days of a +05:30 zone on quarter hours and covers them with days and quarter hours', () => {
    const p = dashboardPeriod({ startDate: '2026-03-01', endDate: '2026-03-31', timezone: 'Asia/Kolkata' }, new Date());
    expect(p.startAt).toBe('2026-02-28T18:30:00.000Z');
    expect(p.endAt).toBe('2026-03-31T18:30:00.000Z');
    const cover = coveringBuckets(Date.parse(p.startAt), Date.parse(p.endAt));
    const count = (level: string) => cover.filter((c) => c.level === level).length;
    // 18:30 -> 24:00 on Feb 28, all of March 1-30 (no whole UTC month inside), 00:00 -> 18:30 on Mar 31.
    expect([count('quarter'), count('day'), count('month')]).toEqual([22 + 74, 30, 0]);
    // Most of a year in Berlin (UTC+1 in winter): Jan 14 23:00Z -> Dec 31 23:00Z is 4 quarter hours,
    // Jan 15-31, whole months February to November, Dec 1-30, then 92 quarter hours of Dec 31.
    const y = dashboardPeriod(
      { startDate: '2025-01-15', endDate: '2025-12-31', timezone: 'Europe/Berlin' },
      new Date(),
    );
    const yc = coveringBuckets(Date.parse(y.startAt), Date.parse(y.endAt));
    expect(yc.filter((c) => c.level === 'month').map((c) => new Date(c.start).toISOString().slice(0, 7))).toEqual(
      ['02', '03', '04', '05', '06', '07', '08', '09', '10', '11'].map((m) => `2025-${m}`),
    );
    expect(yc.filter((c) => c.level === 'day').length).toBe(17 + 30);
    expect(yc.filter((c) => c.level === 'quarter').length).toBe(4 + 92);
    expect(yc[0]!.start).toBe(Date.parse(y.startAt));
    expect(yc.at(-1)!.start).toBe(Date.parse(y.endAt) - 15 * 60_000);
    expect(quarterStart('2026-03-31T18:29:59.999Z')).toBe('2026-03-31T18:15:00.000Z');
  });

  it('turns presets into local days and rejects bad combinations', () => {
    const now = new Date('2026-01-01T02:00:00.000Z');
    expect(dashboardPeriod({ period: 'today', timezone: 'America/New_York' }, now)).toMatchObject({
      startDate: '2025-12-31',
      endDate: '2025-12-31',
      startAt: '2025-12-31T05:00:00.000Z',
    });
    expect(dashboardPeriod({ period: 'last_month', timezone: 'UTC' }, now)).toMatchObject({
      startDate: '2025-12-01',
      endDate: '2025-12-31',
    });
    expect(dashboardPeriod({ timezone: 'UTC' }, now)).toMatchObject({
      preset: 'last_30_days',
      startDate: '2025-12-03',
      endDate: '2026-01-01',
    });
    expect(() => dashboardPeriod({ startDate: '2026-01-01', timezone: 'UTC' }, now)).toThrow(/endDate/);
    expect(() => dashboardPeriod({ startDate: '2026-01-02', endDate: '2026-01-01', timezone: 'UTC' }, now)).toThrow(
      /startDate/,
    );
    expect(() => dashboardPeriod({ startDate: '2026-02-30', endDate: '2026-03-01', timezone: 'UTC' }, now)).toThrow(
      /valid date/,
    );
    expect(() =>
      dashboardPeriod({ period: 'today', startDate: '2026-01-01', endDate: '2026-01-01', timezone: 'UTC' }, now),
    ).toThrow(/period/);
    expect(() => dashboardPeriod({ period: 'today', timezone: 'Mars/Olympus' }, now)).toThrow(/timezone/);
  });
});
