import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newApiKey, type RunningSandbox, sdk, startSandbox } from './helpers';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('payment intents through the official SDK', () => {
  it('creates and retrieves a payment intent', async () => {
    const stripe = sdk(sandbox);
    const created = await stripe.paymentIntents.create({
      amount: 2599,
      currency: 'usd',
      metadata: { transaction_id: 'tx_123', tenant: 'acme' },
      description: 'Invoice INV-1',
      receipt_email: 'buyer@example.com',
      automatic_payment_methods: { enabled: true },
    });
    expect(created.id).toMatch(/^pi_[A-Za-z0-9]{24}$/);
    expect(created.object).toBe('payment_intent');
    expect(created.status).toBe('requires_payment_method');
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_[A-Za-z0-9]+$`));
    expect(created.metadata).toEqual({ transaction_id: 'tx_123', tenant: 'acme' });
    expect(created.livemode).toBe(false);
    expect(created.latest_charge).toBeNull();
    expect(created.automatic_payment_methods).toEqual({ enabled: true, allow_redirects: 'always' });
    expect(created.next_action).toEqual({
      type: 'redirect_to_url',
      redirect_to_url: { url: `${sandbox.url}/pay/${created.id}`, return_url: null },
    });
    expect(created.lastResponse.headers['request-id']).toMatch(/^req_/);

    const fetched = await stripe.paymentIntents.retrieve(created.id);
    expect(fetched).toEqual(created);
  });

  it('confirms with pm_card_visa: succeeded with a charge', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'eur',
      allowed_payment_method_types: ['card'],
    });
    expect(pi.payment_method_types).toEqual(['card']);
    expect(pi.allowed_payment_method_types).toEqual(['card']);
    const confirmed = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    expect(confirmed.status).toBe('succeeded');
    expect(confirmed.amount_received).toBe(1000);
    expect(confirmed.next_action).toBeNull();
    expect(confirmed.latest_charge).toMatch(/^ch_/);
    expect(confirmed.payment_method).toMatch(/^pm_/);

    const charge = await stripe.charges.retrieve(confirmed.latest_charge as string);
    expect(charge).toMatchObject({
      object: 'charge',
      status: 'succeeded',
      paid: true,
      amount: 1000,
      currency: 'eur',
      payment_intent: pi.id,
    });
    expect(charge.payment_method_details?.card?.last4).toBe('4242');

    const expanded = await stripe.paymentIntents.retrieve(pi.id, { expand: ['latest_charge'] });
    expect((expanded.latest_charge as Stripe.Charge).id).toBe(charge.id);
  });

  for (const pm of ['pm_card_chargeDeclined', 'pm_card_visa_chargeDeclined']) {
    it(`confirms with ${pm}: card error, back to requires_payment_method`, async () => {
      const stripe = sdk(sandbox);
      const pi = await stripe.paymentIntents.create({ amount: 500, currency: 'usd' });
      const err = await stripe.paymentIntents.confirm(pi.id, { payment_method: pm }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
      const cardErr = err as Stripe.errors.StripeCardError;
      expect(cardErr.statusCode).toBe(402);
      expect(cardErr.code).toBe('card_declined');
      expect(cardErr.decline_code).toBe('generic_decline');
      expect(cardErr.payment_intent?.status).toBe('requires_payment_method');

      const after = await stripe.paymentIntents.retrieve(pi.id);
      expect(after.status).toBe('requires_payment_method');
      expect(after.last_payment_error).toMatchObject({
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
      });
      expect(after.payment_method).toBeNull();
      const failedCharge = await stripe.charges.retrieve(after.latest_charge as string);
      expect(failedCharge.status).toBe('failed');

      // The buyer can try again with another card.
      const retried = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
      expect(retried.status).toBe('succeeded');
      expect(retried.last_payment_error).toBeNull();
    });
  }

  it('accepts the older payment_method_types parameter', async () => {
    const stripe = sdk(sandbox);
    const older: Stripe.PaymentIntentCreateParams & Record<string, unknown> = {
      amount: 1000,
      currency: 'usd',
      payment_method_types: ['card'],
    };
    const pi = await stripe.paymentIntents.create(older);
    expect(pi.payment_method_types).toEqual(['card']);
    expect(pi.allowed_payment_method_types).toBeNull();
  });

  it('creates and confirms in one call with confirm=true', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'gbp',
      payment_method: 'pm_card_mastercard',
      confirm: true,
    });
    expect(pi.status).toBe('succeeded');
  });

  it('rejects confirming a succeeded intent', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 900, currency: 'usd' });
    await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    const err = (await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_visa' })
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('payment_intent_unexpected_state');
  });

  it('validates parameters like the provider', async () => {
    const stripe = sdk(sandbox);
    const missing = (await stripe.paymentIntents
      .create({ currency: 'usd' } as Stripe.PaymentIntentCreateParams)
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing.message).toBe('Missing required param: amount.');
    expect(missing.param).toBe('amount');

    const withTypo: Stripe.PaymentIntentCreateParams & Record<string, unknown> = {
      amount: 100,
      currency: 'usd',
      bogus: 'x',
    };
    const unknown = (await stripe.paymentIntents
      .create(withTypo)
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(unknown.message).toBe('Received unknown parameter: bogus');

    const notFound = (await stripe.paymentIntents
      .retrieve('pi_doesnotexist')
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(notFound.statusCode).toBe(404);
    expect(notFound.code).toBe('resource_missing');
  });
});

describe('cancel', () => {
  it('cancels from requires_payment_method and emits payment_intent.canceled', async () => {
    const key = newApiKey();
    const stripe = sdk(sandbox, key);
    const pi = await stripe.paymentIntents.create({ amount: 1200, currency: 'usd' });
    const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' });
    expect(canceled.status).toBe('canceled');
    expect(canceled.cancellation_reason).toBe('abandoned');
    expect(canceled.canceled_at).toEqual(expect.any(Number));
    expect(canceled.next_action).toBeNull();
    const events = await stripe.events.list({ type: 'payment_intent.canceled' });
    expect(events.data.map((e) => (e.data.object as Stripe.PaymentIntent).id)).toEqual([pi.id]);
  });

  it('refuses to cancel a succeeded or already canceled intent', async () => {
    const stripe = sdk(sandbox);
    const paid = await stripe.paymentIntents.create({
      amount: 1200,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    const err = (await stripe.paymentIntents.cancel(paid.id).catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('payment_intent_unexpected_state');
    expect(err.message).toContain('status of succeeded');

    const pi = await stripe.paymentIntents.create({ amount: 1200, currency: 'usd' });
    await stripe.paymentIntents.cancel(pi.id);
    const again = (await stripe.paymentIntents.cancel(pi.id).catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(again.statusCode).toBe(400);
    const confirmAfterCancel = (await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_visa' })
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(confirmAfterCancel.statusCode).toBe(400);
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('canceled');
  });
});

describe('auth and account scoping', () => {
  it('answers 401 with the provider error shape for missing or malformed keys', async () => {
    const none = await call(sandbox, 'GET', '/v1/payment_intents');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      error: { type: 'invalid_request_error', message: expect.stringContaining('did not provide an API key') },
    });
    const bad = await call(sandbox, 'GET', '/v1/payment_intents', { apiKey: 'rk_nope_123' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.type).toBe('invalid_request_error');

    const err = (await new Stripe('sk_bogus', {
      host: '127.0.0.1',
      port: sandbox.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    }).paymentIntents
      .list()
      .catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it('scopes data per key and reports livemode for live keys', async () => {
    const a = sdk(sandbox);
    const b = sdk(sandbox);
    const pi = await a.paymentIntents.create({ amount: 100, currency: 'usd' });
    const err = (await b.paymentIntents.retrieve(pi.id).catch((e: unknown) => e)) as Stripe.errors.StripeError;
    expect(err.statusCode).toBe(404);
    expect((await b.paymentIntents.list()).data).toEqual([]);
    const live = sdk(sandbox, `sk_live_${newApiKey().slice(8)}`);
    expect((await live.paymentIntents.create({ amount: 100, currency: 'usd' })).livemode).toBe(true);
  });

  it('lists newest first with cursor pagination', async () => {
    const stripe = sdk(sandbox);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await stripe.paymentIntents.create({ amount: 100 + i, currency: 'usd' })).id);
    const page1 = await stripe.paymentIntents.list({ limit: 2 });
    expect(page1.data.map((p) => p.id)).toEqual([ids[4], ids[3]]);
    expect(page1.has_more).toBe(true);
    const all: string[] = [];
    for await (const p of stripe.paymentIntents.list({ limit: 2 })) all.push(p.id);
    expect(all).toEqual([...ids].reverse());
  });
});

describe('concurrency', () => {
  it('lets exactly one of many concurrent confirmations charge the card', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 4200, currency: 'usd' });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const charges = await stripe.charges.list({ payment_intent: pi.id });
    expect(charges.data).toHaveLength(1);
  });
});
