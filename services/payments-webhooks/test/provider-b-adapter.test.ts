import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../test/support/kit';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import * as providerBSandbox from '@paymesh/sandbox-provider-b';
import { ProviderError } from '../src/providers/adapter';
import { ProviderBAdapter } from '../src/providers/provider-b/adapter';
import type { ProviderOptions } from '../src/providers/module';
import { sandboxCall, sandboxEnv, sandboxForFile } from './sandbox-kit';
import {
  expectedMetadata,
  paymentInput,
  runAdapterContract,
  runWebhookContract,
  type Delivery,
} from './adapter-contract';
import { harnessForTests, objectId, paymentCmd, providerBKey, testProvider } from './harness';
import { createPayment } from '../src/app/create-payment';
import { handleWebhook } from '../src/app/handle-webhook';
import { WEBHOOK_RECEIPTS } from '../src/store/collections';

const apiKey = providerBKey();
const baseUrl = sandboxForFile(providerBSandbox, sandboxEnv('PROVIDER_B_SANDBOX'));
const options = (): ProviderOptions => ({ defaultApiBaseUrl: baseUrl(), timeoutMs: 3000, maxNetworkRetries: 0 });

runAdapterContract('provider_b (sandbox)', () => ({
  adapter: () => new ProviderBAdapter({ apiKey }, options()),
  async pay(id) {
    await sandboxCall(baseUrl(), apiKey, 'POST', `/_sandbox/payments/${id}/status`, { status: 'paid' });
  },
  rejectedCredentials: () => new ProviderBAdapter({ apiKey: 'test_tooShort' }, options()),
  unreachable: () => new ProviderBAdapter({ apiKey, apiBaseUrl: 'http://127.0.0.1:9' }, options()),
}));

runWebhookContract('provider_b (sandbox)', (h) => {
  const key = (c: Record<string, unknown>) => String(c['apiKey']);
  const sb = (c: Record<string, unknown>, method: string, path: string, body?: unknown) =>
    sandboxCall(h.sandboxBUrl, key(c), method, path, body);
  return {
    type: 'provider_b',
    credentials: () => ({ apiKey: providerBKey() }),
    pay: async (c, id) => void (await sb(c, 'POST', `/_sandbox/payments/${id}/status`, { status: 'paid' })),
    fail: async (c, id) => void (await sb(c, 'POST', `/_sandbox/payments/${id}/status`, { status: 'failed' })),
    refund: async (c, id, amount) =>
      void (await sb(c, 'POST', `/v2/payments/${id}/refunds`, {
        amount: { currency: 'EUR', value: (amount / 100).toFixed(2) },
      })),
    openDispute: async (c, id) =>
      String((await sb(c, 'POST', `/_sandbox/payments/${id}/chargebacks`, { reason: 'AC04' })).id),
    closeDispute: async (c, id, outcome) =>
      void (await sb(c, 'POST', `/_sandbox/chargebacks/${id}/close`, { outcome })),
    // No signature to break: a forger can only name a payment; one this account does not have.
    forge: (d: Delivery): Delivery => ({ ...d, rawBody: Buffer.from('id=tr_NotThisAccounts1') }),
  };
});

describe('provider_b adapter specifics', () => {
  const adapter = () => new ProviderBAdapter({ apiKey }, options());

  it('creates a payment with the amount as a decimal string, our metadata and the webhook URL; the checkout page is the redirect', async () => {
    const input = paymentInput({ amount: 1234, currency: 'eur' });
    const payment = await adapter().createPayment(input);
    expect(payment.providerPaymentId).toMatch(/^tr_/);
    expect(payment.redirectUrl).toBe(`${baseUrl()}/checkout/${payment.providerPaymentId}`);
    expect(payment.clientSecret).toBeNull();
    const p = await sandboxCall(baseUrl(), apiKey, 'GET', `/v2/payments/${payment.providerPaymentId}`);
    expect(p).toMatchObject({
      resource: 'payment',
      mode: 'test',
      status: 'open',
      amount: { currency: 'EUR', value: '12.34' },
      description: 'Order 42',
      redirectUrl: input.returnUrl,
      webhookUrl: input.webhookUrl,
      metadata: expectedMetadata(input),
    });
  });

  it('maps payment statuses: paid, failed, canceled and expired settle; open does not', async () => {
    const expected = { paid: 'succeeded', failed: 'failed', canceled: 'cancelled', expired: 'cancelled' } as const;
    for (const [status, outcome] of Object.entries(expected)) {
      const payment = await adapter().createPayment(paymentInput());
      expect((await adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('pending');
      await sandboxCall(baseUrl(), apiKey, 'POST', `/_sandbox/payments/${payment.providerPaymentId}/status`, {
        status,
      });
      expect(await adapter().fetchStatus(payment.providerPaymentId)).toMatchObject({ outcome, providerStatus: status });
    }
  });

  it('reads the events of a callback from the fetched payment: an id per state, refunds and chargebacks', async () => {
    const payment = await adapter().createPayment(paymentInput({ amount: 5000 }));
    const callback = {
      rawBody: Buffer.from(`id=${payment.providerPaymentId}`),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      receivedAt: new Date(),
    };
    const open = await adapter().verifyWebhook(callback);
    expect(open).toEqual([
      expect.objectContaining({
        eventId: `${payment.providerPaymentId}:open`,
        outcome: null,
        adjustment: null,
        live: false,
      }),
    ]);
    await sandboxCall(baseUrl(), apiKey, 'POST', `/_sandbox/payments/${payment.providerPaymentId}/status`, {
      status: 'paid',
    });
    const refund = await sandboxCall(baseUrl(), apiKey, 'POST', `/v2/payments/${payment.providerPaymentId}/refunds`, {
      amount: { currency: 'EUR', value: '20.00' },
    });
    expect(refund).toMatchObject({ resource: 'refund', status: 'pending' });
    // The sandbox completes the refund shortly after; the callback then reports both facts.
    const events = await waitFor(
      async () => {
        const e = await adapter().verifyWebhook(callback);
        return e.length >= 2 && e;
      },
      { timeoutMs: 2000, what: 'the payment and its completed refund reported' },
    );
    expect(events.map((e) => e.eventId)).toEqual([
      `${payment.providerPaymentId}:paid`,
      `${String(refund.id)}:refunded`,
    ]);
    expect(events[1]?.adjustment).toEqual({
      kind: 'refund',
      refundId: refund.id,
      amount: 2000,
      currency: 'EUR',
      refundedTotal: 2000,
    });
    const chb = await sandboxCall(
      baseUrl(),
      apiKey,
      'POST',
      `/_sandbox/payments/${payment.providerPaymentId}/chargebacks`,
      {
        reason: 'MD06',
        amount: '30.00',
      },
    );
    expect((await adapter().verifyWebhook(callback)).at(-1)).toMatchObject({
      eventId: `${String(chb.id)}:open`,
      adjustment: { kind: 'dispute', disputeId: chb.id, status: 'open', amount: 3000, currency: 'EUR', reason: 'MD06' },
    });
  });

  it('refuses callbacks that are not a form naming one payment, and payments of other accounts', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const verify = (body: string, headers: Record<string, string> = form) =>
      adapter().verifyWebhook({ rawBody: Buffer.from(body), headers, receivedAt: new Date() });
    for (const [body, headers] of [
      ['{"id":"tr_abcdef"}', { 'content-type': 'application/json' }],
      ['', form],
      ['id=tr_a&id=tr_b', form],
      ['id=../../v2/payments', form],
      ['id=tr_x%00y', form],
    ] as const) {
      await expect(verify(body, headers)).rejects.toBeInstanceOf(ValidationError);
    }
    const theirs = await new ProviderBAdapter({ apiKey: providerBKey() }, options()).createPayment(paymentInput());
    await expect(verify(`id=${theirs.providerPaymentId}`)).rejects.toThrow(/does not have/);
  });

  it('keeps error kinds: invalid request, and an indeterminate outcome when the provider goes silent after the request', async () => {
    const err = await adapter()
      .createPayment(paymentInput({ currency: 'XXX' }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ providerKind: 'invalid', code: 'PROVIDER_INVALID_REQUEST' });
    const { createServer } = await import('node:net');
    const silent = createServer((socket) => socket.on('data', () => socket.destroy()));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const down = await new ProviderBAdapter({ apiKey, apiBaseUrl: `http://127.0.0.1:${port}` }, options())
        .createPayment(paymentInput())
        .catch((e: unknown) => e);
      expect(down).toBeInstanceOf(ProviderError);
      expect(down).toMatchObject({
        providerKind: 'indeterminate',
        code: 'PROVIDER_OUTCOME_UNKNOWN',
        kind: 'unavailable',
      });
    } finally {
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('provider_b callbacks through the use cases', () => {
  const h = harnessForTests();

  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  async function record(credentials: Record<string, unknown>) {
    return testProvider(h.deps, 'provider_b', 'Redirects', credentials);
  }

  it('acknowledges a callback about a payment still open: ignored, recorded, nothing reported', async () => {
    const provider = await record({ apiKey: providerBKey() });
    const transactionId = objectId();
    const started = await createPayment(h.deps, paymentCmd(provider, { transactionId, amount: 1000 }));
    const outboxBefore = (await h.store.outbox.pending(10_000)).length;
    const res = await handleWebhook(h.deps, {
      providerType: 'provider_b',
      providerId: provider.id,
      rawBody: Buffer.from(`id=${started.providerPaymentId}`),
      headers: form,
    });
    expect(res).toEqual({ outcome: 'ignored', eventId: `${started.providerPaymentId}:open` });
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({ providerId: provider.id, outcome: 'ignored' })).toBe(1);
    expect((await h.store.outbox.pending(10_000)).length).toBe(outboxBefore);
  });

  it('a provider that cannot be reached while verifying is unavailable (the provider retries), never a rejection', async () => {
    const provider = await record({ apiKey: providerBKey(), apiBaseUrl: 'http://127.0.0.1:9' });
    const err = await handleWebhook(h.deps, {
      providerType: 'provider_b',
      providerId: provider.id,
      rawBody: Buffer.from('id=tr_abcdefgh'),
      headers: form,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'unavailable', providerKind: 'retryable' });
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({ providerId: provider.id })).toBe(0);
  });

  it('hints show the key prefix and its last four characters only', async () => {
    const apiKey = providerBKey();
    const provider = await record({ apiKey });
    expect(provider.credentialHints).toEqual({ apiKey: `test_…${apiKey.slice(-4)}` });
    expect(JSON.stringify(provider)).not.toContain(apiKey);
  });
});
