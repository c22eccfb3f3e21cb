import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, newApiKey, Receiver, type RunningSandbox, sdk, startSandbox, waitFor } from './helpers';

let sandbox: RunningSandbox;
let receiver: Receiver;

beforeAll(async () => {
  sandbox = await startSandbox({
    PROVIDER_A_SANDBOX_WEBHOOK_MAX_ATTEMPTS: '3',
    PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS: '100',
  });
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(async () => {
  await receiver?.close();
});

async function subscribed(events: string[], apiKey = newApiKey()) {
  receiver = await new Receiver().start();
  const stripe = sdk(sandbox, apiKey);
  const endpoint = await stripe.webhookEndpoints.create({
    url: receiver.url,
    enabled_events: events as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
  });
  return { stripe, endpoint, apiKey };
}

async function paidIntent(stripe: Stripe): Promise<Stripe.PaymentIntent> {
  const pi = await stripe.paymentIntents.create({
    amount: 1500,
    currency: 'usd',
    metadata: { transaction_id: 'tx_wh' },
  });
  return stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
}

describe('webhook endpoints', () => {
  it('returns the signing secret only on creation', async () => {
    const { stripe, endpoint } = await subscribed(['*']);
    expect(endpoint.id).toMatch(/^we_/);
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.status).toBe('enabled');
    const listed = await stripe.webhookEndpoints.list();
    expect(listed.data.map((e) => e.id)).toEqual([endpoint.id]);
    expect(listed.data[0]!.secret).toBeUndefined();
    expect((await stripe.webhookEndpoints.retrieve(endpoint.id)).secret).toBeUndefined();
    const deleted = await stripe.webhookEndpoints.del(endpoint.id);
    expect(deleted).toMatchObject({ id: endpoint.id, deleted: true });
    expect((await stripe.webhookEndpoints.list()).data).toEqual([]);
  });
});

describe('event delivery', () => {
  it('signs deliveries so the SDK verifies them, and a tampered body fails verification', async () => {
    const { stripe, endpoint } = await subscribed(['payment_intent.succeeded', 'charge.succeeded']);
    const pi = await paidIntent(stripe);
    await waitFor(
      () =>
        receiver.events('payment_intent.succeeded').length === 1 && receiver.events('charge.succeeded').length === 1,
      5000,
      'deliveries',
    );

    const delivery = receiver.requests.find((r) => JSON.parse(r.body).type === 'payment_intent.succeeded')!;
    expect(delivery.headers['content-type']).toContain('application/json');
    const signature = delivery.headers['stripe-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    const event = stripe.webhooks.constructEvent(delivery.body, signature, endpoint.secret!);
    expect(event.type).toBe('payment_intent.succeeded');
    expect(event.object).toBe('event');
    expect(event.id).toMatch(/^evt_/);
    const obj = event.data.object as Stripe.PaymentIntent;
    expect(obj.id).toBe(pi.id);
    expect(obj.status).toBe('succeeded');
    expect(obj.metadata.transaction_id).toBe('tx_wh');
    expect(event.livemode).toBe(false);
    expect(event.api_version).toBe(Stripe.API_VERSION);
    expect(event.request?.id).toMatch(/^req_/);

    const tampered = delivery.body.replace('"amount": 1500', '"amount": 1');
    expect(tampered).not.toBe(delivery.body);
    expect(() => stripe.webhooks.constructEvent(tampered, signature, endpoint.secret!)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(delivery.body, signature, 'whsec_wrong')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );

    // Only subscribed types are sent; the stored event is the same object.
    expect(receiver.events('payment_intent.created')).toHaveLength(0);
    const stored = await stripe.events.retrieve(event.id);
    expect(stored.data.object).toEqual(event.data.object);
    await waitFor(
      async () => (await stripe.events.retrieve(event.id)).pending_webhooks === 0,
      2000,
      'pending_webhooks to drop',
    );
  });

  it('lists events newest first with a limit', async () => {
    const { stripe } = await subscribed(['*']);
    await paidIntent(stripe);
    const events = await stripe.events.list({ limit: 2 });
    expect(events.data.map((e) => e.type)).toEqual(['payment_intent.succeeded', 'charge.succeeded']);
    expect(events.has_more).toBe(true);
  });

  it('retries after a 500 from the receiver and delivers the same event', async () => {
    const { stripe, apiKey } = await subscribed(['payment_intent.succeeded']);
    receiver.respond = ({ index }) => (index === 0 ? 500 : 200);
    await paidIntent(stripe);
    await waitFor(() => receiver.requests.length === 2, 5000, 'retry');
    const [first, second] = receiver.events();
    expect(second!.id).toBe(first!.id);
    expect(receiver.requests.map((r) => r.status)).toEqual([500, 200]);

    const deliveries = await call(sandbox, 'GET', `/_sandbox/deliveries?event=${first!.id}`, { apiKey });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toMatchObject([
      {
        event_id: first!.id,
        endpoint_url: receiver.url,
        attempt: 1,
        ok: false,
        status_code: 500,
        next_retry_in_ms: 100,
      },
      {
        event_id: first!.id,
        endpoint_url: receiver.url,
        attempt: 2,
        ok: true,
        status_code: 200,
        next_retry_in_ms: null,
      },
    ]);
    expect(Date.parse(deliveries.body.data[1].at) - Date.parse(deliveries.body.data[0].at)).toBeGreaterThanOrEqual(90);
  });

  it('gives up after the configured number of attempts', async () => {
    const { stripe, apiKey } = await subscribed(['payment_intent.succeeded']);
    receiver.respond = () => 503;
    await paidIntent(stripe);
    await waitFor(() => receiver.requests.length === 3, 5000, 'three attempts');
    // The sandbox has recorded the third attempt and scheduled no other: nothing more will come.
    const deliveries = await waitFor(
      async () => {
        const d = await call(sandbox, 'GET', '/_sandbox/deliveries', { apiKey });
        return d.body.data.length === 3 && d.body.data[2].next_retry_in_ms === null && d;
      },
      5000,
      'the third attempt recorded as the last',
    );
    expect(receiver.requests).toHaveLength(3);
    expect(deliveries.body.data.map((d: { attempt: number }) => d.attempt)).toEqual([1, 2, 3]);
    expect(deliveries.body.data[2].next_retry_in_ms).toBeNull();
  });

  it('records network errors and retries them', async () => {
    const apiKey = newApiKey();
    const stripe = sdk(sandbox, apiKey);
    // A server that drops every connection without answering.
    const rude = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(rude.address() as AddressInfo).port}/hooks`;
    const endpoint = await stripe.webhookEndpoints.create({ url, enabled_events: ['payment_intent.created'] });
    await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    const deliveries = await waitFor(
      async () => {
        const d = await call(sandbox, 'GET', '/_sandbox/deliveries', { apiKey });
        return d.body.data.length >= 2 ? d.body.data : undefined;
      },
      5000,
      'two failed attempts',
    );
    await stripe.webhookEndpoints.del(endpoint.id); // stops the remaining retries
    await new Promise<void>((resolve) => rude.close(() => resolve()));
    expect(deliveries[0]).toMatchObject({ ok: false, status_code: null, attempt: 1 });
    expect(deliveries[0].error).toEqual(expect.any(String));
    expect(deliveries[1]).toMatchObject({ ok: false, attempt: 2 });
  });

  it('resends an event with the same id', async () => {
    const { stripe, apiKey } = await subscribed(['payment_intent.canceled']);
    const pi = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    await stripe.paymentIntents.cancel(pi.id);
    await waitFor(() => receiver.requests.length === 1, 5000, 'first delivery');
    const eventId = receiver.events()[0]!.id;

    const resent = await call(sandbox, 'POST', `/_sandbox/events/${eventId}/resend`, { apiKey });
    expect(resent.status).toBe(200);
    expect(resent.body.event).toBe(eventId);
    await waitFor(() => receiver.requests.length === 2, 5000, 'resend');
    expect(receiver.events().map((e) => e.id)).toEqual([eventId, eventId]);
    const deliveries = await call(sandbox, 'GET', `/_sandbox/deliveries?event=${eventId}`, { apiKey });
    expect(deliveries.body.data.map((d: { resend: boolean }) => d.resend)).toEqual([false, true]);

    const missing = await call(sandbox, 'POST', '/_sandbox/events/evt_nope/resend', { apiKey });
    expect(missing.status).toBe(404);
  });

  it('drops deliveries of an account while told to, and a resend still delivers the dropped event', async () => {
    const { stripe, apiKey } = await subscribed(['payment_intent.canceled']);
    const bad = await call(sandbox, 'POST', '/_sandbox/webhooks/drop', { apiKey, form: { enabled: 'maybe' } });
    expect(bad.status).toBe(400);
    const on = await call(sandbox, 'POST', '/_sandbox/webhooks/drop', { apiKey, form: { enabled: 'true' } });
    expect(on.body).toMatchObject({ scope: 'account', enabled: true });
    const pi = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    await stripe.paymentIntents.cancel(pi.id);
    const events = await stripe.events.list({ type: 'payment_intent.canceled' });
    const eventId = events.data[0]!.id;
    const dropped = await call(sandbox, 'GET', `/_sandbox/deliveries?event=${eventId}`, { apiKey });
    expect(dropped.body.data).toMatchObject([
      { ok: false, error: 'dropped by sandbox control', next_retry_in_ms: null },
    ]);
    expect(events.data[0]!.pending_webhooks).toBe(1);

    await call(sandbox, 'POST', `/_sandbox/events/${eventId}/resend`, { apiKey });
    await waitFor(() => receiver.requests.length === 1, 5000, 'late delivery');
    expect(receiver.events().map((e) => e.id)).toEqual([eventId]);

    await call(sandbox, 'POST', '/_sandbox/webhooks/drop', { apiKey, form: { enabled: 'false' } });
    const next = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    await stripe.paymentIntents.cancel(next.id);
    await waitFor(() => receiver.requests.length === 2, 5000, 'delivery after dropping stopped');
  });

  it('does not hold API responses while the receiver is slow', async () => {
    const { stripe } = await subscribed(['payment_intent.created']);
    receiver.delayMs = 1500;
    const started = Date.now();
    await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    expect(Date.now() - started).toBeLessThan(1000);
    await waitFor(() => receiver.requests.length === 1, 3000, 'slow delivery');
  });

  it('sends nothing to deleted endpoints or to other accounts', async () => {
    const { stripe, endpoint } = await subscribed(['*']);
    const other = sdk(sandbox);
    await other.paymentIntents.create({ amount: 100, currency: 'usd' });
    await stripe.webhookEndpoints.del(endpoint.id);
    await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    // Sentinel: a new endpoint of the same account and one more event. Once it has arrived, whatever
    // the earlier events sent has arrived too; it must be the only request.
    await stripe.webhookEndpoints.create({ url: receiver.url, enabled_events: ['payment_intent.created'] });
    const sentinel = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    await waitFor(() => receiver.requests.length > 0, 5000, 'the sentinel event');
    expect(
      receiver.requests.map((r) => (JSON.parse(r.body) as { data: { object: { id: string } } }).data.object.id),
    ).toEqual([sentinel.id]);
  });
});
