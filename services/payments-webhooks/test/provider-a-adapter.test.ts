import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { waitFor } from '../../../test/support/kit';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import * as providerASandbox from '@paymesh/sandbox-provider-a';
import { ProviderError } from '../src/providers/adapter';
import { ProviderAAdapter, providerAClient } from '../src/providers/provider-a/adapter';
import type { ProviderOptions } from '../src/providers/module';
import { sandboxEnv, sandboxForFile } from './sandbox-kit';
import {
  expectedMetadata,
  paymentInput,
  runAdapterContract,
  runWebhookContract,
  type Delivery,
} from './adapter-contract';
import { testKey } from './harness';

const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
const baseUrl = sandboxForFile(providerASandbox, sandboxEnv('PROVIDER_A_SANDBOX', { WEBHOOK_RETRY_BASE_MS: '50' }));
const options = (): ProviderOptions => ({ defaultApiBaseUrl: baseUrl(), timeoutMs: 3000, maxNetworkRetries: 0 });

runAdapterContract('provider_a (sandbox)', () => ({
  adapter: () => new ProviderAAdapter({ secretKey }, options()),
  async pay(id) {
    await providerAClient(secretKey, baseUrl(), options()).paymentIntents.confirm(id, {
      payment_method: 'pm_card_visa',
    });
  },
  rejectedCredentials: () => new ProviderAAdapter({ secretKey: 'rk_test_restrictedKeyNotAccepted' }, options()),
  unreachable: () => new ProviderAAdapter({ secretKey, apiBaseUrl: 'http://127.0.0.1:9' }, options()),
}));

runWebhookContract('provider_a (sandbox)', (h) => {
  const opts = (): ProviderOptions => ({ defaultApiBaseUrl: h.sandboxUrl, timeoutMs: 3000, maxNetworkRetries: 0 });
  const client = (c: Record<string, unknown>) => providerAClient(String(c['secretKey']), h.sandboxUrl, opts());
  const sandboxCall = async (c: Record<string, unknown>, path: string, body: Record<string, string>) => {
    const res = await fetch(`${h.sandboxUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${String(c['secretKey'])}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(body).toString(),
    });
    const json = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    type: 'provider_a',
    credentials: () => ({ secretKey: testKey() }),
    pay: async (c, id) => void (await client(c).paymentIntents.confirm(id, { payment_method: 'pm_card_visa' })),
    fail: async (c, id) =>
      void (await client(c)
        .paymentIntents.confirm(id, { payment_method: 'pm_card_chargeDeclined' })
        .catch(() => undefined)),
    refund: async (c, id, amount) => void (await client(c).refunds.create({ payment_intent: id, amount })),
    openDispute: async (c, id) => {
      const intent = await client(c).paymentIntents.retrieve(id);
      return (
        await sandboxCall(c, `/_sandbox/charges/${String(intent.latest_charge)}/dispute`, { reason: 'fraudulent' })
      ).id;
    },
    closeDispute: async (c, id, outcome) => void (await sandboxCall(c, `/_sandbox/disputes/${id}/close`, { outcome })),
    // Same bytes, a signature made with a secret that is not the record's.
    forge: (d: Delivery): Delivery => ({
      ...d,
      headers: {
        ...d.headers,
        'stripe-signature': new Stripe('sk_test_forger', { telemetry: false }).webhooks.generateTestHeaderString({
          payload: d.rawBody.toString('utf8'),
          secret: 'whsec_forgedForgedForged000000',
        }),
      },
    }),
  };
});

describe('provider_a adapter specifics', () => {
  it('creates a PaymentIntent with our metadata, lower-case currency and the hosted pay page as redirect', async () => {
    const input = paymentInput({ amount: 1234, currency: 'EUR' });
    const payment = await new ProviderAAdapter({ secretKey }, options()).createPayment(input);
    expect(payment.providerPaymentId).toMatch(/^pi_/);
    expect(payment.redirectUrl).toBe(`${baseUrl()}/pay/${payment.providerPaymentId}`);
    expect(payment.clientSecret).toMatch(new RegExp(`^${payment.providerPaymentId}_secret_`));
    const intent = await providerAClient(secretKey, baseUrl(), options()).paymentIntents.retrieve(
      payment.providerPaymentId,
    );
    expect(intent).toMatchObject({
      amount: 1234,
      currency: 'eur',
      description: 'Order 42',
      receipt_email: 'buyer@example.com',
    });
    expect(intent.metadata).toEqual(expectedMetadata(input));
  });

  it('maps a rejected request to an invalid-request error', async () => {
    const err = await new ProviderAAdapter({ secretKey }, options())
      .createPayment(paymentInput({ currency: 'E1R' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ providerKind: 'invalid', kind: 'validation', code: 'PROVIDER_INVALID_REQUEST' });
  });

  it('registers a webhook endpoint whose deliveries the adapter verifies', async () => {
    const received: Array<{ body: Buffer; headers: Record<string, string> }> = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        received.push({ body: Buffer.concat(chunks), headers });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const key = `sk_test_${randomBytes(12).toString('hex')}`;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/provider_a/x`;
      const endpoint = await new ProviderAAdapter({ secretKey: key }, options()).registerWebhookEndpoint(url);
      expect(endpoint.endpointId).toMatch(/^we_/);
      expect(endpoint.secret).toMatch(/^whsec_/);

      const adapter = new ProviderAAdapter({ secretKey: key, webhookSecret: endpoint.secret }, options());
      const payment = await adapter.createPayment(paymentInput());
      await providerAClient(key, baseUrl(), options()).paymentIntents.confirm(payment.providerPaymentId, {
        payment_method: 'pm_card_visa',
      });
      const delivery = await waitFor(() => received.find((r) => r.body.includes('"payment_intent.succeeded"')), {
        timeoutMs: 5000,
        stepMs: 25,
        what: 'the payment_intent.succeeded delivery',
      });
      const event = adapter.verifyAndParseWebhook({
        rawBody: delivery.body,
        headers: delivery.headers,
        receivedAt: new Date(),
      });
      expect(event).toMatchObject({ eventType: 'payment_intent.succeeded', outcome: 'succeeded', live: false });
      expect(event.payment?.providerPaymentId).toBe(payment.providerPaymentId);
      // payment_intent.created and charge.succeeded are not subscribed to.
      expect(received.every((r) => !r.body.includes('"payment_intent.created"'))).toBe(true);

      const other = new ProviderAAdapter(
        { secretKey: key, webhookSecret: 'whsec_notTheEndpointSecret0000' },
        options(),
      );
      expect(() =>
        other.verifyAndParseWebhook({ rawBody: delivery.body, headers: delivery.headers, receivedAt: new Date() }),
      ).toThrow(/signature/);
      await adapter.deleteWebhookEndpoint(endpoint.endpointId);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});
