import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '@paymesh/core';
import { dashboardQuery } from '@paymesh/contracts';
import { createManualTransaction } from '../src/app/create-manual-transaction';
import { getDashboard } from '../src/app/dashboard';
import { runBackfill } from '../src/app/dashboard-backfill';
import { deleteTransaction } from '../src/app/delete-transaction';
import { insertTransaction } from '../src/app/transition';
import { updateTransaction } from '../src/app/update-transaction';
import type { DashboardBucketDoc } from '../src/domain/dashboard';
import type { TransactionDoc } from '../src/domain/transaction';
import { DASHBOARD_BUCKETS, TRANSACTIONS } from '../src/store/collections';
import { openHarness, type Harness } from './harness';

/** The dashboard aggregates on PostgreSQL: kept with every write, never twice, and backfilled. */
describe('dashboard aggregates on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  const scope = () => ({ organizationId: org.organizationId, mode: 'live' as const });
  // The harness clock stands at 2026-03-01T12:00Z.
  const dash = (query: Record<string, unknown> = {}) =>
    getDashboard(h.deps, scope(), dashboardQuery.parse({ startDate: '2026-02-01', endDate: '2026-03-31', ...query }));
  const manual = (amount: number, status: -1 | 1, currency = 'EUR') =>
    createManualTransaction(h.deps, {
      ...scope(),
      siteId: org.siteId,
      amount,
      currency,
      status,
      reason: 'bank transfer',
      externalReference: `wire-${amount}`,
    });
  const buckets = async () =>
    (
      await h.store
        .collection<DashboardBucketDoc>(DASHBOARD_BUCKETS)
        .find({ organizationId: org.organizationId }, { sort: { id: 1 } })
    ).items.map((b) => [b.id, b.counters]);

  beforeAll(async () => {
    h = await openHarness();
    org = await h.site();
  });
  afterAll(async () => h?.close());

  it('counts creation, a status change and a deletion in the same store transaction, and a repeat not at all', async () => {
    const paid = await manual(1000, 1);
    h.clock.advance(60_000);
    const draft = await manual(250, -1);
    let d = await dash();
    expect(d.transactionCounts).toMatchObject({ total: 2, completed: 1, initiated: 1 });
    expect(d.currencies[0]).toMatchObject({ currency: 'EUR', grossVolume: 1000, netRevenue: 1000 });
    expect(d.recentTransactions.map((t) => t.id)).toEqual([draft.id, paid.id]);

    await updateTransaction(h.deps, { ...scope(), id: draft.id }, { status: 1, reason: 'transfer received' });
    const before = await buckets();
    // The same change again is an unchanged repeat: nothing moves.
    await updateTransaction(h.deps, { ...scope(), id: draft.id }, { status: 1, reason: 'transfer received' });
    expect(await buckets()).toEqual(before);
    d = await dash();
    expect(d.transactionCounts).toMatchObject({ total: 2, completed: 2, initiated: 0 });
    expect(d.currencies[0]!.grossVolume).toBe(1250);

    const gone = await manual(99, -1);
    expect((await dash()).transactionCounts.total).toBe(3);
    await deleteTransaction(h.deps, { ...scope(), id: gone.id });
    expect((await dash()).transactionCounts).toMatchObject({ total: 2, initiated: 0 });
  });

  it('a store transaction that fails after the transaction was written leaves the buckets as they were', async () => {
    const before = await buckets();
    const now = h.clock.now().toISOString();
    await expect(
      h.deps.outbox.commit(async (tx) => {
        await insertTransaction(
          tx,
          {
            id: newObjectId(),
            organizationId: org.organizationId,
            siteId: org.siteId,
            mode: 'live',
            checkoutId: null,
            sessionPublicId: null,
            amount: 5000,
            currency: 'EUR',
            email: null,
            externalReference: null,
            invoiceNumber: null,
            clientId: null,
            returnUrl: null,
            cancelUrl: null,
            ipnUrl: null,
            providerId: null,
            providerType: null,
            providerPaymentId: null,
            providerPayment: { state: 'none', error: null, redirectUrl: null },
            billingAddress: null,
            metadata: {},
            notes: null,
            manual: true,
            manualReason: 'x',
            openCheckoutId: null,
            deletedAt: null,
            createdAt: now,
            updatedAt: now,
          },
          { kind: 'create_manual', status: 1 },
        );
        throw new Error('crash before commit');
      }),
    ).rejects.toThrow('crash before commit');
    expect(await buckets()).toEqual(before);
  });

  it('20 concurrent payments of one merchant all count (counters add up instead of conflicting)', async () => {
    const other = await h.site();
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createManualTransaction(h.deps, {
          organizationId: other.organizationId,
          mode: 'live',
          siteId: other.siteId,
          amount: 100 + i,
          currency: 'USD',
          status: 1,
          reason: 'r',
          externalReference: `c${i}`,
        }),
      ),
    );
    const d = await getDashboard(
      h.deps,
      { organizationId: other.organizationId, mode: 'live' },
      dashboardQuery.parse({ startDate: '2026-03-01', endDate: '2026-03-01' }),
    );
    expect(d.transactionCounts.completed).toBe(20);
    expect(d.currencies[0]!.grossVolume).toBe(many.reduce((n, t) => n + t.amount, 0));
  });

  it('the backfill brings in transactions stored without aggregates, once, and a forced pass changes nothing', async () => {
    const txs = h.store.collection<TransactionDoc>(TRANSACTIONS);
    h.clock.advance(60_000);
    const template = await manual(700, 1, 'GBP');
    const { id: _id, version: _v, aggregated: _a, createdQuarter: _q, ...fields } = template;
    // Older transactions: written before the aggregates existed (no `aggregated`), one a day earlier.
    const old = [
      await txs.insert({ ...fields, amount: 300, createdAt: '2026-02-28T23:50:00.000Z' }),
      await txs.insert({ ...fields, amount: 400, status: 2, createdAt: '2026-03-01T08:05:00.000Z' }),
    ];
    let d = await dash({ currency: 'GBP' });
    expect(d.transactionCounts.total).toBe(1);

    const first = await runBackfill(h.deps, { batch: 2 });
    expect(first).toMatchObject({ updated: 2, done: true });
    d = await dash({ currency: 'GBP' });
    expect(d.transactionCounts).toMatchObject({ total: 3, completed: 2, failed: 1 });
    expect(d.currencies[0]).toMatchObject({ grossVolume: 1000, failureRatio: 1 / 3 });
    expect(d.recentTransactions.map((t) => t.id)).toEqual([template.id, old[1]!.id, old[0]!.id]);

    const settled = await buckets();
    expect(await runBackfill(h.deps)).toMatchObject({ scanned: 0, updated: 0, done: true });
    expect(await runBackfill(h.deps, { force: true, batch: 3 })).toMatchObject({ updated: 0, done: true });
    expect(await buckets()).toEqual(settled);

    // A backfilled transaction changes like any other: its stored contribution is subtracted.
    await updateTransaction(h.deps, { ...scope(), id: old[1]!.id }, { status: 1, reason: 'paid after all' });
    expect((await dash({ currency: 'GBP' })).currencies[0]).toMatchObject({
      grossVolume: 1400,
      failureRatio: 0,
      completedPayments: 3,
    });
    await h.deps.outbox.commit(async (tx) => {
      const cur = (await tx.collection<TransactionDoc>(TRANSACTIONS).get(old[0]!.id))!;
      const { id: _i, version: _ver, ...body } = cur;
      // A write that does not maintain the buckets (as notes do): the next pass repairs the figures.
      await tx.collection<TransactionDoc>(TRANSACTIONS).replace(cur.id, cur.version, { ...body, amount: 350 });
    });
    expect((await dash({ currency: 'GBP' })).currencies[0]!.grossVolume).toBe(1400);
    expect(await runBackfill(h.deps, { force: true })).toMatchObject({ updated: 1, done: true });
    expect((await dash({ currency: 'GBP' })).currencies[0]!.grossVolume).toBe(1450);
  });
  it('the time series puts each payment in its local hour, day or month of the zone asked for, and adds up to the totals', async () => {
    const own = await h.site();
    const at = (iso: string, amount: number) => {
      h.clock.set(iso);
      return createManualTransaction(h.deps, {
        organizationId: own.organizationId,
        mode: 'live',
        siteId: own.siteId,
        amount,
        currency: 'EUR',
        status: 1,
        reason: 'bank transfer',
        externalReference: `series-${amount}`,
      });
    };
    await at('2026-03-01T12:00:00.000Z', 1000);
    // 00:30 of 2 March in Berlin, 05:00 in Kolkata, still 1 March in UTC.
    await at('2026-03-01T23:30:00.000Z', 500);
    await at('2026-01-15T08:00:00.000Z', 70);
    h.clock.set('2026-03-03T12:00:00.000Z');
    const series = async (query: Record<string, unknown>) => {
      const d = await getDashboard(
        h.deps,
        { organizationId: own.organizationId, mode: 'live' },
        dashboardQuery.parse(query),
      );
      const gross = Object.fromEntries(
        d.series.points.filter((p) => p.currencies.length > 0).map((p) => [p.label, p.currencies[0]!.grossVolume]),
      );
      const total = d.series.points.reduce((n, p) => n + (p.currencies[0]?.grossVolume ?? 0), 0);
      expect(total).toBe(d.currencies[0]?.grossVolume ?? 0);
      return { granularity: d.series.granularity, points: d.series.points.length, gross };
    };
    const days = { startDate: '2026-02-27', endDate: '2026-03-03' };
    expect(await series({ ...days, timezone: 'UTC' })).toEqual({
      granularity: 'day',
      points: 5,
      gross: { '2026-03-01': 1500 },
    });
    expect(await series({ ...days, timezone: 'Europe/Berlin' })).toEqual({
      granularity: 'day',
      points: 5,
      gross: { '2026-03-01': 1000, '2026-03-02': 500 },
    });
    expect((await series({ ...days, timezone: 'Asia/Kolkata' })).gross).toEqual({
      '2026-03-01': 1000,
      '2026-03-02': 500,
    });
    expect((await series({ ...days, timezone: 'America/Los_Angeles' })).gross).toEqual({ '2026-03-01': 1500 });
    expect(await series({ startDate: '2026-03-01', endDate: '2026-03-01', timezone: 'Europe/Berlin' })).toEqual({
      granularity: 'hour',
      points: 24,
      gross: { '2026-03-01T13:00': 1000 },
    });
    expect(await series({ startDate: '2025-10-01', endDate: '2026-03-03', timezone: 'Europe/Berlin' })).toEqual({
      granularity: 'month',
      points: 6,
      gross: { '2026-01': 70, '2026-03': 1500 },
    });
  });
});
