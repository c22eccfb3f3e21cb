import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { ProviderAAdapter } from './adapter';

const secret = 'whsec_unitTestSecret0123456789';
const stripe = new Stripe('sk_test_unit', { telemetry: false });
const adapter = new ProviderAAdapter(
  { secretKey: 'sk_test_unitunitunit', webhookSecret: secret },
  { defaultApiBaseUrl: 'http://127.0.0.1:9', timeoutMs: 1000, maxNetworkRetries: 0 },
);

const now = new Date('2026-03-01T12:00:00Z');
const nowSeconds = Math.floor(now.getTime() / 1000);

function eventBody(type = 'payment_intent.succeeded', object: Record<string, unknown> = {}): string {
  return JSON.stringify(
    {
      id: 'evt_unit_1',
      object: 'event',
      type,
      created: nowSeconds - 5,
      livemode: false,
      data: {
        object: {
          id: 'pi_unit_1',
          object: 'payment_intent',
          status: 'succeeded',
          metadata: { transaction_id: 'tx1' },
          ...object,
        },
      },
    },
    null,
    2,
  );
}

function deliver(body: string, header: string | undefined) {
  return adapter.verifyAndParseWebhook({
    rawBody: Buffer.from(body),
    headers: header === undefined ? {} : { 'stripe-signature': header },
    receivedAt: now,
  });
}

function rejection(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a rejection');
}

describe('provider_a webhook verification', () => {
  it('accepts a correctly signed delivery and normalizes it', () => {
    const body = eventBody();
    const event = deliver(
      body,
      stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds }),
    );
    expect(event).toEqual({
      eventId: 'evt_unit_1',
      eventType: 'payment_intent.succeeded',
      occurredAt: new Date((nowSeconds - 5) * 1000).toISOString(),
      live: false,
      outcome: 'succeeded',
      adjustment: null,
      payment: { providerPaymentId: 'pi_unit_1', metadata: { transaction_id: 'tx1' } },
    });
  });

  it('rejects a tampered body', () => {
    const body = eventBody();
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds });
    const tampered = body.replace('"pi_unit_1"', '"pi_other_2"');
    expect(tampered).not.toBe(body);
    expect(rejection(() => deliver(tampered, header)).message).toMatch(/signature/);
  });

  it('rejects a signature made with another secret', () => {
    const body = eventBody();
    const header = stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: 'whsec_someoneElse000000000000',
      timestamp: nowSeconds,
    });
    expect(rejection(() => deliver(body, header)).message).toMatch(/signature mismatch/);
  });

  it('rejects a timestamp older than five minutes and accepts one just inside', () => {
    const body = eventBody();
    const stale = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds - 301 });
    expect(rejection(() => deliver(body, stale)).message).toMatch(/tolerance/);
    const fresh = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds - 299 });
    expect(deliver(body, fresh).eventId).toBe('evt_unit_1');
  });

  it('rejects a correctly signed delivery dated one hour in the future and accepts one just inside the window', () => {
    const body = eventBody();
    const ahead = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds + 3600 });
    expect(rejection(() => deliver(body, ahead)).message).toMatch(/tolerance/);
    const justAhead = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds + 301 });
    expect(rejection(() => deliver(body, justAhead)).message).toMatch(/tolerance/);
    const skewed = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds + 299 });
    expect(deliver(body, skewed).eventId).toBe('evt_unit_1');
  });

  it('refuses a header carrying two timestamps', () => {
    const body = eventBody();
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds });
    expect(rejection(() => deliver(body, `t=${nowSeconds + 3600},${header}`)).message).toMatch(/malformed/);
  });

  it('rejects a missing header and a signed payload that is not an event', () => {
    expect(rejection(() => deliver(eventBody(), undefined)).message).toMatch(/Stripe-Signature/);
    const notEvent = JSON.stringify({ hello: 'world' });
    const header = stripe.webhooks.generateTestHeaderString({ payload: notEvent, secret, timestamp: nowSeconds });
    expect(rejection(() => deliver(notEvent, header)).message).toMatch(/not a provider_a event/);
  });

  it('acknowledges other event types without an outcome', () => {
    const body = eventBody('charge.succeeded', { object: 'charge', id: 'ch_1' });
    const event = deliver(
      body,
      stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds }),
    );
    expect(event.outcome).toBeNull();
    expect(event.adjustment).toBeNull();
    expect(event.payment).toBeNull();
    expect(event.eventType).toBe('charge.succeeded');
  });

  const signed = (type: string, object: Record<string, unknown>, previous?: Record<string, unknown>) => {
    const body = JSON.stringify({
      id: 'evt_unit_2',
      object: 'event',
      type,
      created: nowSeconds - 5,
      livemode: false,
      data: { object, ...(previous ? { previous_attributes: previous } : {}) },
    });
    return deliver(body, stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds }));
  };
  const charge = {
    id: 'ch_1',
    object: 'charge',
    payment_intent: 'pi_unit_1',
    amount: 5000,
    currency: 'eur',
    metadata: { transaction_id: 'tx1' },
  };

  it('reads a refund from charge.refunded: its amount is the rise of the refunded total', () => {
    const event = signed('charge.refunded', { ...charge, amount_refunded: 3000 }, { amount_refunded: 1000 });
    expect(event.outcome).toBeNull();
    expect(event.adjustment).toEqual({
      kind: 'refund',
      refundId: 'ch_1:3000',
      amount: 2000,
      currency: 'EUR',
      refundedTotal: 3000,
    });
    expect(event.payment).toEqual({ providerPaymentId: 'pi_unit_1', metadata: { transaction_id: 'tx1' } });
  });

  it('reads dispute states and rejects refund or dispute events without their object', () => {
    const dispute = {
      id: 'dp_1',
      object: 'dispute',
      payment_intent: 'pi_unit_1',
      amount: 5000,
      currency: 'eur',
      reason: 'fraudulent',
    };
    expect(signed('charge.dispute.created', { ...dispute, status: 'needs_response' }).adjustment).toEqual({
      kind: 'dispute',
      disputeId: 'dp_1',
      status: 'open',
      amount: 5000,
      currency: 'EUR',
      reason: 'fraudulent',
    });
    expect(signed('charge.dispute.closed', { ...dispute, status: 'lost' }).adjustment).toMatchObject({
      status: 'lost',
    });
    expect(signed('charge.dispute.closed', { ...dispute, status: 'won' }).payment).toEqual({
      providerPaymentId: 'pi_unit_1',
      metadata: null,
    });
    expect(rejection(() => signed('charge.refunded', { id: 'ch_1', object: 'charge' })).message).toMatch(/charge/);
    expect(rejection(() => signed('charge.dispute.created', { ...charge, amount_refunded: 0 })).message).toMatch(
      /dispute/,
    );
  });

  it('rejects an outcome event whose object is not a payment intent', () => {
    const body = eventBody('payment_intent.succeeded', { object: 'charge' });
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: nowSeconds });
    expect(rejection(() => deliver(body, header)).message).toMatch(/payment intent/);
  });
});
