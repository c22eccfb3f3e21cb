import { ManualClock } from '@paymesh/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../errors';
import { type Account, NO_REQUEST, Sandbox } from './account';
import { createPaymentIntent, cancelPaymentIntent, confirmPaymentIntent, updatePaymentIntent } from './payment-intents';
import type { ProviderEvent } from './types';

let account: Account;
let emitted: ProviderEvent[];

const input = {
  amount: 1000,
  currency: 'usd',
  metadata: { transaction_id: 't1' },
  description: null,
  receipt_email: null,
  payment_method_types: null,
  allowed_payment_method_types: null,
  excluded_payment_method_types: null,
  automatic_payment_methods: null,
  payment_method: null,
  return_url: null,
  statement_descriptor: null,
  statement_descriptor_suffix: null,
};

beforeEach(() => {
  emitted = [];
  const sandbox = new Sandbox({
    clock: new ManualClock('2026-03-01T00:00:00Z'),
    apiVersion: 'test',
    payUrl: (id) => `http://pay.test/pay/${id}`,
    onEvent: (_a, e) => emitted.push(e),
  });
  account = sandbox.account('sk_test_unit');
});

describe('payment intent state machine', () => {
  it('starts awaiting a payment method with the pay page as next action', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    expect(intent.status).toBe('requires_payment_method');
    expect(intent.created).toBe(Date.parse('2026-03-01T00:00:00Z') / 1000);
    expect(intent.next_action?.redirect_to_url.url).toBe(`http://pay.test/pay/${intent.id}`);
    expect(emitted.map((e) => e.type)).toEqual(['payment_intent.created']);
  });

  it('succeeds with a good card and emits charge.succeeded then payment_intent.succeeded', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    const r = confirmPaymentIntent(account, intent.id, { payment_method: 'pm_card_visa' }, NO_REQUEST);
    expect(r.failure).toBeNull();
    expect(r.intent.status).toBe('succeeded');
    expect(r.charge.status).toBe('succeeded');
    expect(emitted.map((e) => e.type)).toEqual([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.succeeded',
    ]);
  });

  it('events carry snapshots, not live objects', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    confirmPaymentIntent(account, intent.id, { payment_method: 'pm_card_visa' }, NO_REQUEST);
    expect((emitted[0]!.data.object as { status: string }).status).toBe('requires_payment_method');
  });

  it('declines with a declining card and lets the buyer retry', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    const r = confirmPaymentIntent(
      account,
      intent.id,
      { payment_method: 'pm_card_chargeDeclinedInsufficientFunds' },
      NO_REQUEST,
    );
    expect(r.failure?.decline_code).toBe('insufficient_funds');
    expect(r.intent.status).toBe('requires_payment_method');
    expect(emitted.map((e) => e.type).slice(1)).toEqual(['charge.failed', 'payment_intent.payment_failed']);
    expect(confirmPaymentIntent(account, intent.id, { payment_method: 'pm_card_visa' }, NO_REQUEST).intent.status).toBe(
      'succeeded',
    );
  });

  it('rejects unknown payment methods and confirming without one', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    expect(() => confirmPaymentIntent(account, intent.id, { payment_method: 'pm_card_nope' }, NO_REQUEST)).toThrow(
      /No such PaymentMethod/,
    );
    expect(() => confirmPaymentIntent(account, intent.id, {}, NO_REQUEST)).toThrow(/missing a payment method/);
    expect(intent.status).toBe('requires_payment_method');
  });

  it('cancels only from cancelable states', () => {
    const a = createPaymentIntent(account, input, NO_REQUEST).intent;
    expect(cancelPaymentIntent(account, a.id, 'duplicate', NO_REQUEST).status).toBe('canceled');
    expect(() => cancelPaymentIntent(account, a.id, null, NO_REQUEST)).toThrow(ApiError);
    const b = createPaymentIntent(account, input, NO_REQUEST).intent;
    confirmPaymentIntent(account, b.id, { payment_method: 'pm_card_visa' }, NO_REQUEST);
    const err = (() => {
      try {
        cancelPaymentIntent(account, b.id, null, NO_REQUEST);
      } catch (e) {
        return e as ApiError;
      }
      return undefined;
    })();
    expect(err?.status).toBe(400);
    expect(err?.body.code).toBe('payment_intent_unexpected_state');
  });

  it('updates metadata any time but the amount only before payment', () => {
    const { intent } = createPaymentIntent(account, input, NO_REQUEST);
    updatePaymentIntent(account, intent.id, { amount: 2000, metadata: { transaction_id: null, extra: 'x' } });
    expect(intent.amount).toBe(2000);
    expect(intent.metadata).toEqual({ extra: 'x' });
    confirmPaymentIntent(account, intent.id, { payment_method: 'pm_card_visa' }, NO_REQUEST);
    expect(() => updatePaymentIntent(account, intent.id, { amount: 1 })).toThrow(/could not be updated/);
    expect(updatePaymentIntent(account, intent.id, { description: 'later' }).description).toBe('later');
  });
});
