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

describe('Idempotency-Key', () => {
  it('replays the stored response for the same key and parameters', async () => {
    const stripe = sdk(sandbox);
    const params = { amount: 3100, currency: 'usd', metadata: { transaction_id: 'tx_idem' } };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-1' });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: 'order-1' });
    expect(second.id).toBe(first.id);
    expect(second).toEqual(first);
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(second.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);
    expect((await stripe.paymentIntents.list()).data).toHaveLength(1);
    expect((await stripe.events.list({ type: 'payment_intent.created' })).data).toHaveLength(1);
  });

  it('rejects the same key with different parameters', async () => {
    const stripe = sdk(sandbox);
    await stripe.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'order-2' });
    const err = await stripe.paymentIntents
      .create({ amount: 200, currency: 'usd' }, { idempotencyKey: 'order-2' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect((err as Stripe.errors.StripeError).statusCode).toBe(400);
    expect((err as Stripe.errors.StripeError).message).toContain("other than 'order-2'");
  });

  it('scopes keys per account', async () => {
    const a = sdk(sandbox);
    const b = sdk(sandbox);
    const pa = await a.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'shared' });
    const pb = await b.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'shared' });
    expect(pb.id).not.toBe(pa.id);
    expect(pb.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays a declined confirmation (402) without charging again', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    const e1 = (await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }, { idempotencyKey: 'c1' })
      .catch((e: unknown) => e)) as Stripe.errors.StripeCardError;
    const e2 = (await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }, { idempotencyKey: 'c1' })
      .catch((e: unknown) => e)) as Stripe.errors.StripeCardError;
    expect(e1.statusCode).toBe(402);
    expect(e2.statusCode).toBe(402);
    expect(e2.headers?.['idempotent-replayed']).toBe('true');
    expect(e2.charge).toBe(e1.charge);
    expect((await stripe.charges.list({ payment_intent: pi.id })).data).toHaveLength(1);
  });

  it('does not store parameter errors, so a corrected retry with the key works', async () => {
    const key = newApiKey();
    const bad = await call(sandbox, 'POST', '/v1/payment_intents', {
      apiKey: key,
      form: { currency: 'usd' },
      headers: { 'idempotency-key': 'k3' },
    });
    expect(bad.status).toBe(400);
    const good = await call(sandbox, 'POST', '/v1/payment_intents', {
      apiKey: key,
      form: { currency: 'usd', amount: '100' },
      headers: { 'idempotency-key': 'k3' },
    });
    expect(good.status).toBe(200);
    expect(good.body.id).toMatch(/^pi_/);
  });

  it('executes once when the same key arrives concurrently', async () => {
    const key = newApiKey();
    const send = () =>
      call(sandbox, 'POST', '/v1/payment_intents', {
        apiKey: key,
        form: { currency: 'usd', amount: '555' },
        headers: { 'idempotency-key': 'burst' },
      });
    const results = await Promise.all(Array.from({ length: 8 }, send));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
  });
});
