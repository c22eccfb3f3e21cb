import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '@paymesh/core';
import type { PaymentAdjustmentReported } from '@paymesh/contracts';
import { createTransaction } from '../src/app/create-transaction';
import { applyPaymentStatus } from '../src/app/apply-payment-status';
import { applyPaymentAdjustment } from '../src/app/apply-payment-adjustment';
import { getPublicCheckout } from '../src/app/public-checkout';
import { resolveChargeback } from '../src/app/resolve-chargeback';
import { liftCustomerHold, listCustomerHolds } from '../src/app/customer-holds';
import { updateRiskSettings } from '../src/app/risk-settings';
import { buyerRiskGuard } from '../src/app/buyer-risk';
import type { CheckoutDoc } from '../src/domain/checkout';
import type { BuyerBlockDoc } from '../src/domain/customer-hold';
import type { ProviderInfo } from '../src/app/payments-port';
import { BUYER_BLOCKS } from '../src/store/collections';
import { openHarness, type Harness } from './harness';

const billing = (email: string) => ({
  name: 'Ada Buyer',
  email,
  line1: 'Main 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    return err.code;
  }
}

describe('disputes and customer risk holds on PostgreSQL', () => {
  let h: Harness;
  let org: { organizationId: string; siteId: string };
  let cards: ProviderInfo;
  let n = 0;

  beforeAll(async () => {
    h = await openHarness();
    h.deps.guards.push(buyerRiskGuard(h.deps));
    org = await h.site();
    cards = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_a' });
  });
  afterAll(async () => h?.close());

  const key = () => ({ organizationId: org.organizationId, mode: 'live' as const });
  const checkout = (extra: Record<string, unknown> = {}): Promise<CheckoutDoc> =>
    h.checkout(org, { externalReference: `order-${++n}`, ...extra });
  const pay = (c: CheckoutDoc, email: string, providerId = cards.id) =>
    createTransaction(h.deps, {
      sessionPublicId: c.sessionPublicId,
      providerId,
      billingAddress: billing(email),
      browserOrigin: '',
    });

  /** A completed card payment of `email`. */
  async function paid(email: string): Promise<string> {
    const tx = (await pay(await checkout({ email }), email)).transaction;
    await applyPaymentStatus(h.deps, {
      organizationId: org.organizationId,
      siteId: org.siteId,
      transactionId: tx.id,
      providerId: cards.id,
      providerType: 'provider_a',
      providerPaymentId: `pi_${tx.id}`,
      outcome: 'succeeded',
      providerEventId: `evt_ok_${tx.id}`,
      providerEventType: 'payment_intent.succeeded',
      occurredAt: '2026-03-01T12:01:00.000Z',
    });
    return tx.id;
  }

  const dispute = (
    transactionId: string,
    status: 'open' | 'won' | 'lost',
    eventId: string,
  ): PaymentAdjustmentReported => ({
    organizationId: org.organizationId,
    siteId: org.siteId,
    transactionId,
    providerId: cards.id,
    providerType: 'provider_a',
    providerPaymentId: `pi_${transactionId}`,
    providerEventId: eventId,
    providerEventType: status === 'open' ? 'charge.dispute.created' : 'charge.dispute.closed',
    occurredAt: '2026-03-02T12:00:00.000Z',
    adjustment: {
      kind: 'dispute',
      disputeId: `dp_${transactionId}`,
      status,
      amount: 4200,
      currency: 'EUR',
      reason: 'fraudulent',
    },
  });

  it('an open dispute blocks checkouts of the same buyer (e-mail in any case, or client ID) until it is decided', async () => {
    const tx = await paid('Mia@Example.com');
    expect(await applyPaymentAdjustment(h.deps, dispute(tx, 'open', 'evt_open_1'))).toBe('applied');
    expect(await codeOf(checkout({ email: 'mia@example.COM' }))).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
    // A session without the e-mail is created, but paying with that e-mail is refused.
    const anonymous = await checkout();
    expect(await codeOf(pay(anonymous, 'mia@example.com'))).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
    // Someone else is not affected.
    expect(await codeOf(checkout({ email: 'other@example.com' }))).toBeUndefined();

    expect(await applyPaymentAdjustment(h.deps, dispute(tx, 'won', 'evt_won_1'))).toBe('applied');
    expect(await codeOf(checkout({ email: 'mia@example.com' }))).toBeUndefined();
    expect((await listCustomerHolds(h.deps, key(), { transactionId: tx, page: 1, limit: 20 })).total).toBe(0);
  });

  it('a lost dispute creates ONE hold (repeats and manual repeats change nothing) that blocks until an Admin lifts it', async () => {
    const tx = await paid('leo@example.com');
    await applyPaymentAdjustment(h.deps, dispute(tx, 'open', 'evt_open_2'));
    // Recorded, the status stays 4.
    expect(await applyPaymentAdjustment(h.deps, dispute(tx, 'lost', 'evt_lost_2'))).toBe('unchanged');
    expect(await applyPaymentAdjustment(h.deps, dispute(tx, 'lost', 'evt_lost_2'))).toBe('duplicate');
    expect(await applyPaymentAdjustment(h.deps, dispute(tx, 'won', 'evt_won_late'))).toBe('unchanged');
    await resolveChargeback(
      h.deps,
      { ...key(), id: tx },
      { chargebackId: `dp_${tx}`, status: 'lost', reason: null, actor: 'user:u1' },
    );
    expect(
      await codeOf(
        resolveChargeback(
          h.deps,
          { ...key(), id: tx },
          { chargebackId: `dp_${tx}`, status: 'won', reason: null, actor: 'user:u1' },
        ),
      ),
    ).toBe('CHARGEBACK_FINAL');

    const holds = await listCustomerHolds(h.deps, key(), { transactionId: tx, page: 1, limit: 20 });
    expect(holds.total).toBe(1);
    const hold = holds.items[0]!;
    expect(hold).toMatchObject({
      status: 'active',
      action: 'block',
      buyer: { emails: ['leo@example.com'] },
      source: { outcome: 'lost', decidedBy: 'provider' },
    });
    // The dispute's own flag is gone; only the hold's remains.
    const blocks = await h.store.collection<BuyerBlockDoc>(BUYER_BLOCKS).find({ key: 'email:leo@example.com' });
    expect(blocks.items.map((b) => b.kind)).toEqual(['hold']);
    expect(await codeOf(checkout({ email: 'leo@example.com' }))).toBe('CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');

    const lifted = await liftCustomerHold(
      h.deps,
      { ...key(), id: hold.id },
      { actor: 'user:admin', reason: 'refund agreed' },
    );
    expect(lifted).toMatchObject({ status: 'lifted', liftedBy: 'user:admin', liftReason: 'refund agreed' });
    const again = await liftCustomerHold(h.deps, { ...key(), id: hold.id }, { actor: 'user:other', reason: null });
    expect(again.liftedBy).toBe('user:admin');
    expect(await codeOf(checkout({ email: 'leo@example.com' }))).toBeUndefined();
    await expect(
      liftCustomerHold(
        h.deps,
        { organizationId: org.organizationId, mode: 'test', id: hold.id },
        { actor: 'x', reason: null },
      ),
    ).rejects.toThrow(NotFoundError);
  });

  it('manual resolution follows the provider rules: lost holds the buyer, won restores status 1 without a hold', async () => {
    const lost = await paid('kai@example.com');
    await applyPaymentAdjustment(h.deps, dispute(lost, 'open', 'evt_open_3'));
    const doc = await resolveChargeback(
      h.deps,
      { ...key(), id: lost },
      { chargebackId: `dp_${lost}`, status: 'lost', reason: 'no evidence', actor: 'user:u7' },
    );
    expect(doc.status).toBe(4);
    expect(doc.chargebacks?.[0]).toMatchObject({
      status: 'lost',
      decidedBy: 'user:u7',
      decisionReason: 'no evidence',
      reason: 'fraudulent',
    });
    const holds = await listCustomerHolds(h.deps, key(), { transactionId: lost, page: 1, limit: 20 });
    expect(holds.items[0]?.source.decidedBy).toBe('user:u7');

    const won = await paid('noa@example.com');
    await applyPaymentAdjustment(h.deps, dispute(won, 'open', 'evt_open_4'));
    const restored = await resolveChargeback(
      h.deps,
      { ...key(), id: won },
      { chargebackId: `dp_${won}`, status: 'won', reason: null, actor: 'user:u7' },
    );
    expect(restored.status).toBe(1);
    expect(restored.statusHistory.at(-1)).toMatchObject({
      from: 4,
      to: 1,
      trigger: 'manual_dispute_won',
      reason: `dispute dp_${won} won`,
    });
    expect((await listCustomerHolds(h.deps, key(), { transactionId: won, page: 1, limit: 20 })).total).toBe(0);
    expect(await codeOf(checkout({ email: 'noa@example.com' }))).toBeUndefined();
    await expect(
      resolveChargeback(
        h.deps,
        { ...key(), id: won },
        { chargebackId: 'dp_unknown', status: 'lost', reason: null, actor: 'user:u7' },
      ),
    ).rejects.toThrow(NotFoundError);
  });

  it('a restrict hold lists only safe provider types and refuses the others', async () => {
    await updateRiskSettings(h.deps, key(), { holdPolicy: 'restrict' });
    try {
      const tx = await paid('ida@example.com');
      await applyPaymentAdjustment(h.deps, dispute(tx, 'open', 'evt_open_5'));
      await applyPaymentAdjustment(h.deps, dispute(tx, 'lost', 'evt_lost_5'));
      // No safe provider enabled: the session could not be paid at all.
      expect(await codeOf(checkout({ email: 'ida@example.com' }))).toBe('CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD');
      const transfer = h.payments.addProvider({ organizationId: org.organizationId, type: 'provider_b' });
      const c = await checkout({ email: 'ida@example.com' });
      expect((await getPublicCheckout(h.deps, c.sessionPublicId, '')).providers).toEqual(['provider_b']);
      expect(await codeOf(pay(c, 'ida@example.com'))).toBe('CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD');
      expect((await pay(c, 'ida@example.com', transfer.id)).transaction.providerType).toBe('provider_b');
      // Other buyers see every type.
      const other = await checkout({ email: 'zoe@example.com' });
      expect((await getPublicCheckout(h.deps, other.sessionPublicId, '')).providers.sort()).toEqual([
        'provider_a',
        'provider_b',
      ]);
    } finally {
      await updateRiskSettings(h.deps, key(), { holdPolicy: 'block' });
    }
  });
});
