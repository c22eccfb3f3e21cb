import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '@paymesh/core';
import * as providerDSandbox from '@paymesh/sandbox-provider-d';
import { ProviderDAdapter, type ProviderDOptions } from '../src/providers/provider-d/adapter';
import type { ProviderDCredentials } from '../src/providers/provider-d/module';
import { sandboxCall, sandboxEnv, sandboxForFile } from './sandbox-kit';
import { paymentInput, runAdapterContract, runWebhookContract, type Delivery } from './adapter-contract';
import { createPayment } from '../src/app/create-payment';
import { cancelPayment } from '../src/app/cancel-payment';
import { startCapture } from '../src/app/handle-webhook';
import type { PaymentDoc } from '../src/domain/payment';
import { PAYMENTS } from '../src/store/collections';
import { harnessForTests, objectId, paymentCmd, rejection, testProvider } from './harness';

const baseUrl = sandboxForFile(providerDSandbox, sandboxEnv('PROVIDER_D_SANDBOX'));
const options = (): ProviderDOptions => ({
  defaultApiBaseUrl: baseUrl(),
  timeoutMs: 3000,
  maxNetworkRetries: 0,
  webhookToleranceMs: 300_000,
});

/** A fresh sandbox app (any client id of 8+ characters with a 16+ character secret is one). */
export const providerDApp = (): ProviderDCredentials => ({
  clientId: `AcId${randomBytes(10).toString('hex')}`,
  clientSecret: `EKs${randomBytes(16).toString('hex')}`,
  environment: 'sandbox',
});

/** A sandbox call as the app of `c` (API or sandbox controls). */
async function call(base: string, c: Record<string, unknown>, method: string, path: string, body?: unknown) {
  const basic = Buffer.from(`${String(c['clientId'])}:${String(c['clientSecret'])}`).toString('base64');
  const tok = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await tok.json()) as { access_token: string };
  return sandboxCall(base, access_token, method, path, body);
}

const app = providerDApp();
runAdapterContract('provider_d (sandbox)', () => ({
  adapter: () => new ProviderDAdapter(app, options()),
  async pay(id) {
    await call(baseUrl(), app, 'POST', `/_sandbox/orders/${id}/approve`, { funding: 'ok' });
    await new ProviderDAdapter(app, options()).capturePayment(id);
  },
  rejectedCredentials: () => new ProviderDAdapter({ ...app, clientSecret: 'short-secret' }, options()),
  unreachable: () => new ProviderDAdapter({ ...app, apiBaseUrl: 'http://127.0.0.1:9' }, options()),
  cancels: 'unapproved',
}));

runWebhookContract('provider_d (sandbox)', (h) => {
  const sb = (c: Record<string, unknown>, method: string, path: string, body?: unknown) =>
    call(h.sandboxDUrl, c, method, path, body);
  return {
    type: 'provider_d',
    credentials: () => providerDApp(),
    pay: async (c, id) => void (await sb(c, 'POST', `/_sandbox/orders/${id}/approve`, { funding: 'ok' })),
    fail: async (c, id) => void (await sb(c, 'POST', `/_sandbox/orders/${id}/approve`, { funding: 'declined' })),
    refund: async (c, id, amount) => {
      const order = await sb(c, 'GET', `/v2/checkout/orders/${id}`);
      const captureId = String(order.purchase_units[0].payments.captures[0].id);
      await sb(c, 'POST', `/v2/payments/captures/${captureId}/refund`, {
        amount: { currency_code: 'EUR', value: (amount / 100).toFixed(2) },
      });
    },
    openDispute: async (c, id) => String((await sb(c, 'POST', `/_sandbox/orders/${id}/disputes`, {})).dispute_id),
    closeDispute: async (c, id, outcome) =>
      void (await sb(c, 'POST', `/v1/customer/disputes/${id}/adjudicate`, {
        adjudication_outcome: outcome === 'lost' ? 'BUYER_FAVOR' : 'SELLER_FAVOR',
      })),
    // The signature is what an attacker cannot make: the provider's verification answers FAILURE.
    forge: (d: Delivery): Delivery => ({
      ...d,
      headers: { ...d.headers, 'paypal-transmission-sig': Buffer.from('forged').toString('base64') },
    }),
    cancels: 'unapproved',
  };
});

describe('provider_d adapter specifics', () => {
  const adapter = () => new ProviderDAdapter({ ...app, webhookId: 'WH-NONE' }, options());

  it('creates a CAPTURE order with the amount as a decimal string and our ids in custom_id; the approve link is the pay page', async () => {
    const input = paymentInput({ amount: 1234, currency: 'eur' });
    const payment = await adapter().createPayment(input);
    expect(payment.redirectUrl).toBe(`${baseUrl()}/checkoutnow?token=${payment.providerPaymentId}`);
    const order = await call(baseUrl(), app, 'GET', `/v2/checkout/orders/${payment.providerPaymentId}`);
    expect(order.intent).toBe('CAPTURE');
    expect(order.purchase_units[0].amount).toEqual({ currency_code: 'EUR', value: '12.34' });
    expect(order.purchase_units[0].custom_id).toBe(
      `${input.transactionId}:${input.organizationId}:${input.siteId}:${input.providerId}`,
    );
  });

  it('captures an approved order once: a second capture answers the same capture', async () => {
    const payment = await adapter().createPayment(paymentInput());
    await call(baseUrl(), app, 'POST', `/_sandbox/orders/${payment.providerPaymentId}/approve`, { funding: 'ok' });
    const first = await adapter().capturePayment(payment.providerPaymentId);
    const again = await adapter().capturePayment(payment.providerPaymentId);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ outcome: 'succeeded', payment: { providerPaymentId: payment.providerPaymentId } });
    expect(again[0]?.eventId).toBe(first[0]?.eventId);
  });

  it('reports an approved order without a capture as waiting for ours (what the reconciler captures), and nothing else', async () => {
    const payment = await adapter().createPayment(paymentInput());
    expect(await adapter().fetchStatus(payment.providerPaymentId)).toMatchObject({
      outcome: 'pending',
      providerStatus: 'CREATED',
      capture: false,
    });
    await call(baseUrl(), app, 'POST', `/_sandbox/orders/${payment.providerPaymentId}/approve`, { funding: 'ok' });
    expect(await adapter().fetchStatus(payment.providerPaymentId)).toMatchObject({
      outcome: 'pending',
      providerStatus: 'APPROVED',
      capture: true,
    });
    await adapter().capturePayment(payment.providerPaymentId);
    expect(await adapter().fetchStatus(payment.providerPaymentId)).toMatchObject({
      outcome: 'succeeded',
      providerStatus: 'COMPLETED',
      capture: false,
    });
  });

  it('accepts the cancel of an order the buyer has not approved, refuses an approved one (our capture is due) and a captured one', async () => {
    const open = await adapter().createPayment(paymentInput());
    await adapter().cancelPayment(open.providerPaymentId);
    // Nothing is voided at the provider: the order simply stays unapproved and expires there.
    expect(await adapter().fetchStatus(open.providerPaymentId)).toMatchObject({
      outcome: 'pending',
      providerStatus: 'CREATED',
    });

    const approved = await adapter().createPayment(paymentInput());
    await call(baseUrl(), app, 'POST', `/_sandbox/orders/${approved.providerPaymentId}/approve`, { funding: 'ok' });
    const refused = await rejection(adapter().cancelPayment(approved.providerPaymentId));
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as ConflictError).code).toBe('CANCEL_REFUSED');

    await adapter().capturePayment(approved.providerPaymentId);
    const captured = await rejection(adapter().cancelPayment(approved.providerPaymentId));
    expect((captured as ConflictError).code).toBe('PAYMENT_ALREADY_CAPTURED');
  });

  it('refuses deliveries without transmission headers, stale ones and non-JSON bodies before asking the provider', async () => {
    const headers = {
      'paypal-transmission-id': 'x',
      'paypal-transmission-time': new Date(Date.now() - 3_600_000).toISOString(),
      'paypal-transmission-sig': 'c2ln',
      'paypal-cert-url': `${baseUrl()}/cert`,
      'paypal-auth-algo': 'SHA256withRSA',
    };
    const body = Buffer.from(
      JSON.stringify({ id: 'WH-1', event_type: 'X', create_time: new Date().toISOString(), resource: {} }),
    );
    expect(
      await rejection(adapter().verifyWebhook({ rawBody: body, headers: {}, receivedAt: new Date() })),
    ).toBeInstanceOf(ValidationError);
    expect(await rejection(adapter().verifyWebhook({ rawBody: body, headers, receivedAt: new Date() }))).toBeInstanceOf(
      ValidationError,
    );
    const fresh = { ...headers, 'paypal-transmission-time': new Date().toISOString() };
    expect(
      await rejection(
        adapter().verifyWebhook({ rawBody: Buffer.from('{nope'), headers: fresh, receivedAt: new Date() }),
      ),
    ).toBeInstanceOf(ValidationError);
    // Well-formed but not signed by the provider for this webhook id.
    expect(
      await rejection(adapter().verifyWebhook({ rawBody: body, headers: fresh, receivedAt: new Date() })),
    ).toBeInstanceOf(ValidationError);
  });
});

describe('provider_d: a cancel and a capture never both happen', () => {
  const h = harnessForTests();

  async function started() {
    const provider = await testProvider(h.deps, 'provider_d', 'wallet', { ...providerDApp(), webhookId: 'WH-FENCE' });
    const transactionId = objectId();
    const payment = await createPayment(
      h.deps,
      paymentCmd(provider, { transactionId, amount: 900, description: 'Fence order' }),
    );
    const stored = (await h.deps.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId }))!;
    return {
      provider,
      transactionId,
      payment,
      stored,
      cmd: { organizationId: provider.organizationId, providerId: provider.id, transactionId },
    };
  }

  it('a cancelled payment is never captured afterwards', async () => {
    const p = await started();
    await cancelPayment(h.deps, p.cmd);
    expect(await startCapture(h.deps, p.stored.id)).toBe(false);
    const after = (await h.deps.store.collection<PaymentDoc>(PAYMENTS).get(p.stored.id))!;
    expect(after.status).toBe('cancelled');
    expect(after.captureStartedAt ?? null).toBeNull();
  });

  it('a payment whose capture started is never cancelled, though its order still reads unapproved', async () => {
    const p = await started();
    expect(await startCapture(h.deps, p.stored.id)).toBe(true);
    // A retry of the same capture (a crash before the provider answered) may go ahead again.
    expect(await startCapture(h.deps, p.stored.id)).toBe(true);
    const err = await rejection(cancelPayment(h.deps, p.cmd));
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).code).toBe('CANCEL_REFUSED');
    expect((await h.deps.store.collection<PaymentDoc>(PAYMENTS).get(p.stored.id))!.status).toBe('pending');
  });
});
