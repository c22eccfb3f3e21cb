import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newApiKey, Receiver, type RunningSandbox, sdk, startSandbox, waitFor } from './helpers';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

async function paid(stripe: Stripe, amount = 2000): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.create({ amount, currency: 'usd', payment_method: 'pm_card_visa', confirm: true });
}

describe('refunds', () => {
  it('refunds partially then fully and emits charge.refunded with the charge', async () => {
    const receiver = await new Receiver().start();
    try {
      const stripe = sdk(sandbox);
      const endpoint = await stripe.webhookEndpoints.create({ url: receiver.url, enabled_events: ['charge.refunded'] });
      const pi = await paid(stripe);
      const partial = await stripe.refunds.create({
        payment_intent: pi.id,
        amount: 500,
        metadata: { reason_code: 'r1' },
      });
      expect(partial).toMatchObject({
        object: 'refund',
        amount: 500,
        status: 'succeeded',
        payment_intent: pi.id,
        charge: pi.latest_charge,
      });
      expect(partial.id).toMatch(/^re_/);
      const rest = await stripe.refunds.create({ charge: pi.latest_charge as string });
      expect(rest.amount).toBe(1500);

      await waitFor(() => receiver.requests.length === 2, 5000, 'two charge.refunded events');
      const events = receiver.requests.map((r) =>
        stripe.webhooks.constructEvent(r.body, r.headers['stripe-signature'] as string, endpoint.secret!),
      );
      const charges = events.map((e) => e.data.object as Stripe.Charge);
      expect(charges.map((c) => [c.amount_refunded, c.refunded])).toEqual([
        [500, false],
        [2000, true],
      ]);
      expect(events[0]!.data.previous_attributes).toEqual({ amount_refunded: 0, refunded: false });

      const again = (await stripe.refunds
        .create({ payment_intent: pi.id })
        .catch((e: unknown) => e)) as Stripe.errors.StripeError;
      expect(again.statusCode).toBe(400);
      expect(again.code).toBe('charge_already_refunded');
    } finally {
      await receiver.close();
    }
  });

  it('rejects refunds larger than what is left or of unpaid intents', async () => {
    const stripe = sdk(sandbox);
    const pi = await paid(stripe, 1000);
    const tooMuch = (await stripe.refunds
      .create({ payment_intent: pi.id, amount: 1001 })
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(tooMuch.code).toBe('amount_too_large');
    expect(tooMuch.message).toContain('$10.01');
    const unpaid = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    const err = (await stripe.refunds
      .create({ payment_intent: unpaid.id })
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(err.statusCode).toBe(400);
    const none = (await stripe.refunds.create({}).catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(none.statusCode).toBe(400);
  });
});

describe('disputes (sandbox controls)', () => {
  it('opens and closes disputes with the matching events', async () => {
    const receiver = await new Receiver().start();
    try {
      const apiKey = newApiKey();
      const stripe = sdk(sandbox, apiKey);
      const endpoint = await stripe.webhookEndpoints.create({
        url: receiver.url,
        enabled_events: ['charge.dispute.created', 'charge.dispute.closed'],
      });
      const pi = await paid(stripe);
      const opened = await call(sandbox, 'POST', `/_sandbox/charges/${pi.latest_charge}/dispute`, {
        json: { reason: 'product_not_received' },
      });
      expect(opened.status).toBe(200);
      expect(opened.body).toMatchObject({
        object: 'dispute',
        status: 'needs_response',
        reason: 'product_not_received',
        charge: pi.latest_charge,
        payment_intent: pi.id,
        amount: 2000,
      });
      expect(opened.body.id).toMatch(/^dp_/);
      expect((await stripe.charges.retrieve(pi.latest_charge as string)).disputed).toBe(true);
      expect((await stripe.disputes.retrieve(opened.body.id)).status).toBe('needs_response');

      const twice = await call(sandbox, 'POST', `/_sandbox/charges/${pi.latest_charge}/dispute`, { json: {} });
      expect(twice.status).toBe(400);
      const refund = (await stripe.refunds
        .create({ payment_intent: pi.id })
        .catch((e: unknown) => e)) as Stripe.errors.StripeError;
      expect(refund.code).toBe('charge_disputed');

      const closed = await call(sandbox, 'POST', `/_sandbox/disputes/${opened.body.id}/close`, {
        json: { outcome: 'lost' },
      });
      expect(closed.status).toBe(200);
      expect(closed.body.status).toBe('lost');
      const reclose = await call(sandbox, 'POST', `/_sandbox/disputes/${opened.body.id}/close`, {
        json: { outcome: 'won' },
      });
      expect(reclose.status).toBe(400);
      const badOutcome = await call(sandbox, 'POST', `/_sandbox/disputes/${opened.body.id}/close`, {
        json: { outcome: 'draw' },
      });
      expect(badOutcome.status).toBe(400);

      await waitFor(() => receiver.requests.length === 2, 5000, 'dispute events');
      const events = receiver.requests.map((r) =>
        stripe.webhooks.constructEvent(r.body, r.headers['stripe-signature'] as string, endpoint.secret!),
      );
      expect(events.map((e) => [e.type, (e.data.object as Stripe.Dispute).status])).toEqual([
        ['charge.dispute.created', 'needs_response'],
        ['charge.dispute.closed', 'lost'],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('accepts form bodies, defaults the reason, and scopes by key when one is given', async () => {
    const stripe = sdk(sandbox);
    const pi = await paid(stripe);
    const stranger = await call(sandbox, 'POST', `/_sandbox/charges/${pi.latest_charge}/dispute`, {
      apiKey: newApiKey(),
      form: {},
    });
    expect(stranger.status).toBe(404);
    const opened = await call(sandbox, 'POST', `/_sandbox/charges/${pi.latest_charge}/dispute`, { form: {} });
    expect(opened.body.reason).toBe('fraudulent');
    const won = await call(sandbox, 'POST', `/_sandbox/disputes/${opened.body.id}/close`, { form: { outcome: 'won' } });
    expect(won.body.status).toBe('won');
    expect((await call(sandbox, 'POST', '/_sandbox/charges/ch_missing/dispute', { json: {} })).status).toBe(404);
  });
});

describe('misc', () => {
  it('serves /health and answers unknown routes in the provider error shape', async () => {
    expect((await call(sandbox, 'GET', '/health')).status).toBe(200);
    const res = await call(sandbox, 'GET', '/v1/customers', { apiKey: newApiKey() });
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('invalid_request_error');
  });
});
