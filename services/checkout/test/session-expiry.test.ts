import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnavailableError } from '@paymesh/core';
import { checkoutSessionExpired, type CheckoutSessionExpired, type PaymentStatusReported } from '@paymesh/contracts';
import { createTransaction } from '../src/app/create-transaction';
import { applyPaymentStatus } from '../src/app/apply-payment-status';
import { markTransactionPending } from '../src/app/mark-transaction-pending';
import { expireSessions } from '../src/app/expire-sessions';
import { expireAbandonedTransactions } from '../src/app/expire-transactions';
import { listCheckouts } from '../src/app/get-checkout';
import { checkoutStatus, type CheckoutDoc } from '../src/domain/checkout';
import type { TransactionDoc } from '../src/domain/transaction';
import { CHECKOUTS, TRANSACTIONS } from '../src/store/collections';
import type { ProviderInfo } from '../src/app/payments-port';
import { BUYER_BILLING, openHarness, type Harness } from './harness';

const opts = { batchSize: 10, retryMs: 60_000 };

describe('checkout session sweep on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  let provider: ProviderInfo;

  beforeAll(async () => {
    // Transactions are abandoned only a day after they start: what expires them here is their session.
    h = await openHarness({ transactionAbandonAfterMs: 24 * 3_600_000 });
    org = await h.site();
    provider = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_b' });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    h.payments.onCancel = async () => ({ cancelled: true });
  });

  const checkout = (): Promise<CheckoutDoc> =>
    h.checkout(org, {
      externalReference: 'order-9',
      ipnUrl: 'https://shop.example/ipn',
      expiresAt: new Date(h.clock.now().getTime() + 10 * 60_000).toISOString(),
    });
  const pay = async (c: CheckoutDoc) =>
    (
      await createTransaction(h.deps, {
        sessionPublicId: c.sessionPublicId,
        providerId: provider.id,
        billingAddress: BUYER_BILLING,
        browserOrigin: '',
      })
    ).transaction;
  const stored = async (id: string) => (await h.store.collection<CheckoutDoc>(CHECKOUTS).get(id))!;
  const txOf = async (id: string) => (await h.store.collection<TransactionDoc>(TRANSACTIONS).get(id))!;
  const expiredEvents = async (checkoutId: string): Promise<CheckoutSessionExpired[]> =>
    (await h.pending())
      .filter((e) => e.subject === 'checkout.session.expired')
      .map((e) => checkoutSessionExpired.parse((e.payload as { data: unknown }).data))
      .filter((d) => d.checkoutId === checkoutId);
  const succeeded = (tx: TransactionDoc, providerEventId: string): PaymentStatusReported => ({
    organizationId: org.organizationId,
    siteId: org.siteId,
    transactionId: tx.id,
    providerId: provider.id,
    providerType: 'provider_b',
    providerPaymentId: `pi_${tx.id}`,
    outcome: 'succeeded',
    providerEventId,
    providerEventType: 'paid',
    occurredAt: h.clock.now().toISOString(),
  });

  it('stores a session past its expiry as expired once, however many replicas sweep, and abandons its pending transaction (-2, one status event)', async () => {
    const c = await checkout();
    const tx = await pay(c);
    expect(tx.status).toBe(0);
    // Not due before its expiry.
    expect((await expireSessions(h.deps, opts)).expired).toBe(0);
    h.clock.advance(10 * 60_000);
    // Due: reads expired at once, before any sweep (the derived rule).
    expect(checkoutStatus(await stored(c.id), h.clock.now())).toBe('expired');

    const passes = await Promise.all(Array.from({ length: 4 }, () => expireSessions(h.deps, opts)));
    expect(passes.reduce((n, p) => n + p.expired, 0)).toBe(1);
    expect(await stored(c.id)).toMatchObject({ status: 'expired', expiredAt: h.clock.now().toISOString() });
    expect(await expiredEvents(c.id)).toEqual([
      expect.objectContaining({
        organizationId: org.organizationId,
        siteId: org.siteId,
        mode: 'live',
        abandonedTransactionId: tx.id,
        expiresAt: c.expiresAt,
        externalReference: 'order-9',
      }),
    ]);
    const expired = await txOf(tx.id);
    expect(expired.status).toBe(-2);
    expect(expired.statusHistory.at(-1)).toMatchObject({ from: 0, to: -2, trigger: 'expire' });
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, -2]);
    expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id)).toHaveLength(1);
    // Later passes find nothing more to do.
    expect((await expireSessions(h.deps, opts)).looked).toBe(0);
    const listed = await listCheckouts(h.deps, {
      organizationId: org.organizationId,
      mode: 'live',
      status: 'expired',
      page: 1,
      limit: 100,
    });
    expect(listed.items.map((x) => x.id)).toContain(c.id);
    const open = await listCheckouts(h.deps, {
      organizationId: org.organizationId,
      mode: 'live',
      status: 'pending',
      page: 1,
      limit: 100,
    });
    expect(open.items.map((x) => x.id)).not.toContain(c.id);
  });

  it('leaves a paid session and its transaction alone', async () => {
    const c = await checkout();
    const tx = await pay(c);
    expect(await applyPaymentStatus(h.deps, succeeded(tx, 'paid-1'))).toBe('applied');
    h.clock.advance(10 * 60_000);
    await expireSessions(h.deps, opts);
    expect((await stored(c.id)).status).toBe('completed');
    expect((await txOf(tx.id)).status).toBe(1);
    expect(await expiredEvents(c.id)).toEqual([]);
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, 1]);
  });

  it('a session without a transaction expires with its event and nothing else', async () => {
    const c = await checkout();
    h.clock.advance(10 * 60_000);
    await expireSessions(h.deps, opts);
    expect((await stored(c.id)).status).toBe('expired');
    expect(await expiredEvents(c.id)).toEqual([expect.objectContaining({ abandonedTransactionId: null })]);
  });

  it('a provider that took the money keeps the transaction pending; its success still completes the expired session', async () => {
    const c = await checkout();
    const tx = await pay(c);
    h.payments.onCancel = async () => ({ cancelled: false });
    h.clock.advance(10 * 60_000);
    await expireSessions(h.deps, opts);
    expect((await stored(c.id)).status).toBe('expired');
    expect((await txOf(tx.id)).status).toBe(0);
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0]);
    // The webhook (or the reconciler) reports the payment: the money counts, the session reads paid.
    expect(await applyPaymentStatus(h.deps, succeeded(tx, 'paid-late'))).toBe('applied');
    expect((await txOf(tx.id)).status).toBe(1);
    expect(await stored(c.id)).toMatchObject({ status: 'completed', completedTransactionId: tx.id });
  });

  it('when the provider cannot answer, the transaction stays due and the transaction expiry pass finishes it', async () => {
    const c = await checkout();
    const tx = await pay(c);
    h.payments.onCancel = async () => {
      throw new UnavailableError('payments-webhooks is down');
    };
    h.clock.advance(10 * 60_000);
    await expireSessions(h.deps, opts);
    expect((await stored(c.id)).status).toBe('expired');
    const waiting = await txOf(tx.id);
    expect(waiting.status).toBe(0);
    // Due for transaction expiry long before its own abandon time (a day after it started).
    expect(Date.parse(waiting.expireAt!)).toBeLessThanOrEqual(h.clock.now().getTime() + opts.retryMs);
    h.payments.onCancel = async () => ({ cancelled: true });
    h.clock.advance(opts.retryMs);
    await expireAbandonedTransactions(h.deps, opts);
    expect((await txOf(tx.id)).status).toBe(-2);
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, -2]);
  });
  it('a transaction waiting for its provider flow (pending_provider) keeps its own expiry time', async () => {
    const c = await checkout();
    const tx = await pay(c);
    await markTransactionPending(h.deps, {
      transactionId: tx.id,
      sessionPublicId: c.sessionPublicId,
      browserOrigin: '',
    });
    h.clock.advance(10 * 60_000);
    await expireSessions(h.deps, opts);
    expect((await stored(c.id)).status).toBe('expired');
    expect(await expiredEvents(c.id)).toEqual([expect.objectContaining({ abandonedTransactionId: null })]);
    const waiting = await txOf(tx.id);
    expect(waiting).toMatchObject({ status: 0, subState: 'pending_provider', expireAt: tx.expireAt });
    expect(h.payments.cancelCalls.filter((x) => x.transactionId === tx.id)).toEqual([]);
    // The collection settles it later: the session reads paid.
    expect(await applyPaymentStatus(h.deps, succeeded(tx, 'collected'))).toBe('applied');
    expect((await stored(c.id)).status).toBe('completed');
  });
});
