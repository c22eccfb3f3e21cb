import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '@paymesh/core';
import { createCheckout } from '../src/app/create-checkout';
import { createTransaction } from '../src/app/create-transaction';
import { markTransactionPending } from '../src/app/mark-transaction-pending';
import { expireAbandonedTransactions } from '../src/app/expire-transactions';
import type { CheckoutDoc } from '../src/domain/checkout';
import type { TransactionDoc } from '../src/domain/transaction';
import { TRANSACTIONS } from '../src/store/collections';
import type { ProviderInfo } from '../src/app/payments-port';
import { BUYER_BILLING, openHarness, type Harness } from './harness';

const ABANDON_AFTER = 10 * 60_000;
const opts = { batchSize: 50, retryMs: 60_000, retryCapMs: 8 * 60_000 };

describe('abandoned transaction expiry backs off per transaction on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  let provider: ProviderInfo;

  beforeAll(async () => {
    h = await openHarness({ transactionAbandonAfterMs: ABANDON_AFTER });
    org = await h.site();
    provider = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_b' });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    h.payments.onCancel = async () => ({ cancelled: true });
  });

  const started = async (): Promise<{ c: CheckoutDoc; tx: TransactionDoc }> => {
    const c = await createCheckout(h.deps, {
      ...org,
      mode: 'live',
      amount: 1500,
      currency: 'EUR',
      externalReference: 'order-backoff',
      ipnUrl: 'https://shop.example/ipn',
      expiresAt: new Date(h.clock.now().getTime() + 48 * 3_600_000).toISOString(),
    });
    const { transaction } = await createTransaction(h.deps, {
      sessionPublicId: c.sessionPublicId,
      providerId: provider.id,
      billingAddress: BUYER_BILLING,
      browserOrigin: '',
    });
    return { c, tx: transaction };
  };
  const txOf = async (id: string) => (await h.store.collection<TransactionDoc>(TRANSACTIONS).get(id))!;
  const cancels = (id: string) => h.payments.cancelCalls.filter((x) => x.transactionId === id).length;

  it('waits twice as long after each refusal up to the cap, keeps trying at the cap, and expires once the provider cancels', async () => {
    const { tx } = await started();
    h.payments.onCancel = async () => ({ cancelled: false });
    h.clock.advance(ABANDON_AFTER);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      await expireAbandonedTransactions(h.deps, opts);
      const cur = await txOf(tx.id);
      expect(cur).toMatchObject({ status: 0, expiryAttempts: attempt });
      expect(cancels(tx.id)).toBe(attempt);
      const wait = Date.parse(cur.expireAt!) - h.clock.now().getTime();
      waits.push(wait);
      // Not tried again a moment before its next attempt is due...
      h.clock.advance(wait - 1);
      await expireAbandonedTransactions(h.deps, opts);
      expect(cancels(tx.id)).toBe(attempt);
      // ...and due exactly then.
      h.clock.advance(1);
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8, 8].map((m) => m * 60_000));
    // Still pending after all of them: nothing was concluded from the refusals.
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0]);

    h.payments.onCancel = async () => ({ cancelled: true });
    await expireAbandonedTransactions(h.deps, opts);
    const expired = await txOf(tx.id);
    expect(expired.status).toBe(-2);
    expect(expired.statusHistory.at(-1)).toMatchObject({ from: 0, to: -2, trigger: 'expire' });
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, -2]);
    expect(cancels(tx.id)).toBe(8);
  });

  it('a transaction waiting for its provider flow is abandoned only when the provider confirms the cancel', async () => {
    const { c, tx } = await started();
    await markTransactionPending(h.deps, {
      transactionId: tx.id,
      sessionPublicId: c.sessionPublicId,
      browserOrigin: '',
    });
    // The provider knows no payment to cancel: for a buyer who finished at the provider that is no confirmation.
    h.payments.onCancel = async () => {
      throw new NotFoundError('payment not found');
    };
    h.clock.advance(ABANDON_AFTER);
    await expireAbandonedTransactions(h.deps, opts);
    expect(await txOf(tx.id)).toMatchObject({ status: 0, subState: 'pending_provider', expiryAttempts: 1 });
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0]);

    h.payments.onCancel = async () => ({ cancelled: false });
    h.clock.advance(opts.retryMs);
    await expireAbandonedTransactions(h.deps, opts);
    expect(await txOf(tx.id)).toMatchObject({ status: 0, subState: 'pending_provider', expiryAttempts: 2 });

    h.payments.onCancel = async () => ({ cancelled: true });
    h.clock.advance(2 * opts.retryMs);
    await expireAbandonedTransactions(h.deps, opts);
    expect((await txOf(tx.id)).status).toBe(-2);
    expect((await h.statusEvents(tx.id)).map((e) => e.status)).toEqual([0, -2]);
  });
});
