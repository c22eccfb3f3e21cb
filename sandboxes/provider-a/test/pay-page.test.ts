import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver, type RunningSandbox, sdk, startSandbox, waitFor } from './helpers';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

function submit(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

describe('buyer pay page', () => {
  it('renders amount, currency and the two buttons without external assets', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 12345, currency: 'eur', description: 'Invoice <INV-9>' });
    const pageUrl = (pi.next_action?.redirect_to_url?.url ?? '') as string;
    expect(pageUrl).toBe(`${sandbox.url}/pay/${pi.id}`);
    const res = await fetch(pageUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('€123.45');
    expect(html).toContain('EUR');
    expect(html).toContain('Invoice &lt;INV-9&gt;');
    expect(html).toMatch(/<button[^>]*name="outcome" value="pay"[^>]*>Pay<\/button>/);
    expect(html).toMatch(/<button[^>]*name="outcome" value="decline"[^>]*>Decline<\/button>/);
    expect(html).not.toMatch(/<(script|link|img)\b/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('pays through the form, moves the intent to succeeded, emits the event and redirects to return_url', async () => {
    const receiver = await new Receiver().start();
    try {
      const stripe = sdk(sandbox);
      const endpoint = await stripe.webhookEndpoints.create({
        url: receiver.url,
        enabled_events: ['payment_intent.succeeded'],
      });
      const returnUrl = 'http://shop.example.test/checkout/done?order=42';
      const pi = await stripe.paymentIntents.create({
        amount: 5000,
        currency: 'usd',
        return_url: returnUrl,
      } as Stripe.PaymentIntentCreateParams);
      expect(pi.next_action?.redirect_to_url?.return_url).toBe(returnUrl);

      const page = await (await fetch(`${sandbox.url}/pay/${pi.id}`)).text();
      expect(page).toContain(`name="return_url" value="${returnUrl}"`);

      const res = await submit(`${sandbox.url}/pay/${pi.id}`, { outcome: 'pay', return_url: returnUrl });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe('http://shop.example.test/checkout/done');
      expect(location.searchParams.get('order')).toBe('42');
      expect(location.searchParams.get('payment_intent')).toBe(pi.id);
      expect(location.searchParams.get('payment_intent_client_secret')).toBe(pi.client_secret);
      expect(location.searchParams.get('redirect_status')).toBe('succeeded');

      const after = await stripe.paymentIntents.retrieve(pi.id);
      expect(after.status).toBe('succeeded');
      expect(after.latest_charge).toMatch(/^ch_/);

      await waitFor(() => receiver.requests.length === 1, 5000, 'succeeded webhook');
      const event = stripe.webhooks.constructEvent(
        receiver.requests[0]!.body,
        receiver.requests[0]!.headers['stripe-signature'] as string,
        endpoint.secret!,
      );
      expect((event.data.object as Stripe.PaymentIntent).id).toBe(pi.id);
      expect(event.request).toEqual({ id: null, idempotency_key: null });

      // A second submission cannot pay twice.
      const again = await submit(`${sandbox.url}/pay/${pi.id}`, { outcome: 'pay' });
      expect(again.status).toBe(409);
      expect((await stripe.charges.list({ payment_intent: pi.id })).data).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('declines through the form: intent back to requires_payment_method, redirect says failed', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    const res = await submit(`${sandbox.url}/pay/${pi.id}`, {
      outcome: 'decline',
      return_url: 'https://shop.example.test/back',
    });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('redirect_status')).toBe('failed');
    expect(location.searchParams.get('payment_intent')).toBe(pi.id);
    const after = await stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe('requires_payment_method');
    expect(after.last_payment_error?.code).toBe('card_declined');
    const events = await stripe.events.list({ type: 'payment_intent.payment_failed' });
    expect(events.data).toHaveLength(1);
    // The page now shows the decline and still offers the buttons.
    const page = await (await fetch(`${sandbox.url}/pay/${pi.id}`)).text();
    expect(page).toContain('Your card was declined.');
    expect(page).toContain('value="pay"');
  });

  it('shows the result page without return_url, and rejects bad input', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 800, currency: 'jpy' });
    const res = await submit(`${sandbox.url}/pay/${pi.id}`, { outcome: 'pay' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<span id="status">succeeded</span>');
    expect(html).toContain('¥800');

    expect((await submit(`${sandbox.url}/pay/${pi.id}`, { outcome: 'maybe' })).status).toBe(400);
    expect((await fetch(`${sandbox.url}/pay/pi_unknown`)).status).toBe(404);
    const other = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    const js = await submit(`${sandbox.url}/pay/${other.id}`, { outcome: 'pay', return_url: 'javascript:alert(1)' });
    expect(js.status).toBe(400);
    expect((await stripe.paymentIntents.retrieve(other.id)).status).toBe('requires_payment_method');
  });

  it('does not offer payment for a canceled intent', async () => {
    const stripe = sdk(sandbox);
    const pi = await stripe.paymentIntents.create({ amount: 800, currency: 'usd' });
    await stripe.paymentIntents.cancel(pi.id);
    const html = await (await fetch(`${sandbox.url}/pay/${pi.id}`)).text();
    expect(html).not.toContain('value="pay"');
    expect(html).toContain('canceled');
    expect((await submit(`${sandbox.url}/pay/${pi.id}`, { outcome: 'pay' })).status).toBe(409);
  });
});
