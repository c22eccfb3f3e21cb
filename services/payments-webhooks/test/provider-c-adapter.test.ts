import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import * as providerCSandbox from '@paymesh/sandbox-provider-c';
import { ProviderCAdapter, STALE_AFTER_MS } from '../src/providers/provider-c/adapter';
import type { ProviderOptions } from '../src/providers/module';
import type { ProviderCCredentials } from '../src/providers/provider-c/module';
import { sandboxCall, sandboxEnv, sandboxForFile, startSandbox } from './sandbox-kit';
import { paymentInput, runAdapterContract, runWebhookContract, type Delivery } from './adapter-contract';
import { harnessForTests, paymentCmd, providerCToken, testProvider } from './harness';
import { createPayment } from '../src/app/create-payment';
import { handleWebhook } from '../src/app/handle-webhook';
import { MANDATES, WEBHOOK_RECEIPTS } from '../src/store/collections';

const baseUrl = sandboxForFile(providerCSandbox, sandboxEnv('PROVIDER_C_SANDBOX'));
const options = (): ProviderOptions => ({ defaultApiBaseUrl: baseUrl(), timeoutMs: 3000, maxNetworkRetries: 0 });
const secret = () => randomBytes(16).toString('hex');
const creds = (over: Partial<ProviderCCredentials> = {}): ProviderCCredentials => ({
  accessToken: providerCToken(),
  webhookSecret: secret(),
  environment: 'sandbox',
  ...over,
});
const sign = (body: string | Buffer, key: string) => createHmac('sha256', key).update(body).digest('hex');

const account = creds();
runAdapterContract('provider_c (sandbox)', () => ({
  adapter: () => new ProviderCAdapter(account, options()),
  async pay(id) {
    await sandboxCall(baseUrl(), account.accessToken, 'POST', `/_sandbox/payments/${id}/decide`, {
      decision: 'confirmed',
    });
  },
  rejectedCredentials: () => new ProviderCAdapter({ ...account, accessToken: 'sandbox_short' }, options()),
  unreachable: () => new ProviderCAdapter({ ...account, apiBaseUrl: 'http://127.0.0.1:9' }, options()),
}));

runWebhookContract('provider_c (sandbox)', (h) => {
  const token = (c: Record<string, unknown>) => String(c['accessToken']);
  const sb = (c: Record<string, unknown>, method: string, path: string, body?: unknown) =>
    sandboxCall(h.sandboxCUrl, token(c), method, path, body);
  return {
    type: 'provider_c',
    credentials: () => ({ ...creds() }),
    onRecord: async (c, url) =>
      void (await sb(c, 'PUT', '/_sandbox/webhook_endpoint', { url, secret: c['webhookSecret'] })),
    pay: async (c, id) => void (await sb(c, 'POST', `/_sandbox/payments/${id}/decide`, { decision: 'confirmed' })),
    fail: async (c, id) => void (await sb(c, 'POST', `/_sandbox/payments/${id}/decide`, { decision: 'failed' })),
    refund: async (c, id, amount) =>
      void (await sb(c, 'POST', '/refunds', { refunds: { amount, links: { payment: id } } })),
    openDispute: async (c, id) => {
      await sb(c, 'POST', `/_sandbox/payments/${id}/charge_back`, {});
      return `${id}:chargeback`;
    },
    closeDispute: async (c, id, outcome) =>
      void (await sb(c, 'POST', `/_sandbox/payments/${id.split(':')[0]}/close_chargeback`, { outcome })),
    // Signed with a secret that is not the record's.
    forge: (d: Delivery): Delivery => ({
      ...d,
      headers: { ...d.headers, 'webhook-signature': sign(d.rawBody, 'not-the-endpoint-secret') },
    }),
  };
});

describe('provider_c adapter specifics', () => {
  const adapter = (c: ProviderCCredentials = account) => new ProviderCAdapter(c, options());

  it('starts a billing request with our metadata in three keys, and the flow page is the redirect', async () => {
    const input = paymentInput({ amount: 1234, currency: 'eur' });
    const payment = await adapter().createPayment(input);
    expect(payment.providerPaymentId).toMatch(/^PM/);
    expect(payment.redirectUrl).toMatch(new RegExp(`^${baseUrl()}/flow/BRF`));
    const p = (await sandboxCall(baseUrl(), account.accessToken, 'GET', `/payments/${payment.providerPaymentId}`))
      .payments;
    expect(p).toMatchObject({
      status: 'pending_customer_approval',
      amount: 1234,
      currency: 'EUR',
      metadata: {
        transaction_id: input.transactionId,
        provider_id: input.providerId,
        tenant: `${input.organizationId}:${input.siteId}`,
      },
    });
  });

  it('maps payer decisions: confirmed, failed and cancelled settle', async () => {
    const expected = { confirmed: 'succeeded', failed: 'failed', cancelled: 'cancelled' } as const;
    for (const [decision, outcome] of Object.entries(expected)) {
      const payment = await adapter().createPayment(paymentInput());
      await sandboxCall(
        baseUrl(),
        account.accessToken,
        'POST',
        `/_sandbox/payments/${payment.providerPaymentId}/decide`,
        { decision },
      );
      expect(await adapter().fetchStatus(payment.providerPaymentId)).toMatchObject({
        outcome,
        providerStatus: decision,
      });
    }
  });

  it('against a provider that answers every reused key with a conflict, a retry finds the request its key made', async () => {
    const strict = await startSandbox(
      providerCSandbox,
      sandboxEnv('PROVIDER_C_SANDBOX', { IDEMPOTENT_REPLAY: 'false' }),
    );
    try {
      const strictAdapter = new ProviderCAdapter({ ...account, apiBaseUrl: strict.url }, options());
      const input = paymentInput();
      const first = await strictAdapter.createPayment(input);
      const again = await strictAdapter.createPayment(input);
      expect(again.providerPaymentId).toBe(first.providerPaymentId);
      expect(again.redirectUrl).toMatch(/\/flow\/BRF/);
      await expect(strictAdapter.createPayment({ ...input, amount: input.amount + 1 })).rejects.toMatchObject({
        providerKind: 'idempotency',
        code: 'PROVIDER_IDEMPOTENCY_MISMATCH',
      });
    } finally {
      await strict.close();
    }
  });

  const delivery = (
    body: string,
    key: string,
    receivedAt = new Date(),
  ): { rawBody: Buffer; headers: Record<string, string>; receivedAt: Date } => ({
    rawBody: Buffer.from(body),
    headers: { 'content-type': 'application/json', 'webhook-signature': sign(body, key) },
    receivedAt,
  });
  const event = (over: Record<string, unknown> = {}) => ({
    id: `EV${randomBytes(6).toString('hex').toUpperCase()}`,
    created_at: new Date().toISOString(),
    resource_type: 'billing_requests',
    action: 'created',
    links: { billing_request: 'BRQ123' },
    details: { origin: 'api', cause: 'billing_request_created' },
    ...over,
  });

  it('verifies Webhook-Signature over the raw body and refuses forged, stale and malformed deliveries', async () => {
    const c = creds();
    const body = JSON.stringify({ events: [event()], meta: { webhook_id: 'WB1' } });
    expect(await adapter(c).verifyWebhook(delivery(body, c.webhookSecret))).toEqual([
      expect.objectContaining({
        eventType: 'billing_requests.created',
        outcome: null,
        adjustment: null,
        payment: null,
        live: false,
      }),
    ]);
    const reject = (d: ReturnType<typeof delivery>) =>
      expect(adapter(c).verifyWebhook(d)).rejects.toBeInstanceOf(ValidationError);
    await reject(delivery(body, 'another-secret-entirely'));
    await reject({ ...delivery(body, c.webhookSecret), rawBody: Buffer.from(`${body} `) });
    await reject({ ...delivery(body, c.webhookSecret), headers: {} });
    await reject(delivery(body, c.webhookSecret, new Date(Date.now() + STALE_AFTER_MS + 60_000)));
    for (const bad of [
      '{not json',
      '{"events":[]}',
      '{"events":"x"}',
      JSON.stringify({ events: [event({ id: 'nope' })] }),
      '[]',
    ]) {
      await reject(delivery(bad, c.webhookSecret));
    }
  });

  it("reads payment, refund and chargeback events from the fetched resources; another account's payment is refused", async () => {
    const payment = await adapter().createPayment(paymentInput({ amount: 5000 }));
    const pm = payment.providerPaymentId;
    await sandboxCall(baseUrl(), account.accessToken, 'POST', `/_sandbox/payments/${pm}/decide`, {
      decision: 'confirmed',
    });
    const rf = (
      await sandboxCall(baseUrl(), account.accessToken, 'POST', '/refunds', {
        refunds: { amount: 2000, links: { payment: pm } },
      })
    ).refunds;
    const body = JSON.stringify({
      events: [
        event({ resource_type: 'payments', action: 'confirmed', links: { payment: pm } }),
        event({ resource_type: 'refunds', action: 'created', links: { refund: rf.id, payment: pm } }),
        event({
          resource_type: 'payments',
          action: 'charged_back',
          links: { payment: pm },
          details: { cause: 'authorisation_disputed', reason_code: 'MD06' },
        }),
        event({ resource_type: 'payments', action: 'late_failure_settled', links: { payment: pm } }),
      ],
    });
    const events = await adapter().verifyWebhook(delivery(body, account.webhookSecret));
    expect(events.map((e) => [e.eventType, e.outcome])).toEqual([
      ['payments.confirmed', 'succeeded'],
      ['refunds.created', null],
      ['payments.charged_back', null],
      ['payments.late_failure_settled', null],
    ]);
    expect(events[0]?.payment?.metadata).toMatchObject({
      organization_id: expect.any(String),
      site_id: expect.any(String),
      transaction_id: expect.any(String),
    });
    expect(events[1]?.adjustment).toEqual({
      kind: 'refund',
      refundId: rf.id,
      amount: 2000,
      currency: 'EUR',
      refundedTotal: 2000,
    });
    expect(events[2]?.adjustment).toEqual({
      kind: 'dispute',
      disputeId: `${pm}:chargeback`,
      status: 'open',
      amount: 5000,
      currency: 'EUR',
      reason: 'MD06',
    });
    const other = creds();
    await expect(adapter(other).verifyWebhook(delivery(body, other.webhookSecret))).rejects.toThrow(/does not have/);
  });
});

describe('provider_c webhooks through the use cases', () => {
  const h = harnessForTests();

  it('unknown event types are recorded and change nothing; mandates are marked cancelled or failed once; hints are masked', async () => {
    const c = creds();
    const provider = await testProvider(h.deps, 'provider_c', 'Direct debit', c);
    expect(provider.credentialHints).toEqual({
      accessToken: `sandbox_…${c.accessToken.slice(-4)}`,
      webhookSecret: `…${c.webhookSecret.slice(-4)}`,
      environment: 'sandbox',
    });
    const started = await createPayment(h.deps, paymentCmd(provider, { amount: 1000 }));
    const sb = (method: string, path: string, body?: unknown) =>
      sandboxCall(h.sandboxCUrl, c.accessToken, method, path, body);
    await sb('POST', `/_sandbox/payments/${started.providerPaymentId}/decide`, { decision: 'confirmed' });
    const md = (await sb('GET', `/payments/${started.providerPaymentId}`)).payments.links.mandate as string;
    const deliver = (events: unknown[], key = c.webhookSecret, providerId = provider.id) => {
      const body = JSON.stringify({ events });
      return handleWebhook(h.deps, {
        providerType: 'provider_c',
        providerId,
        rawBody: Buffer.from(body),
        headers: { 'webhook-signature': sign(body, key) },
      });
    };
    const at = new Date().toISOString();
    const outboxBefore = (await h.store.outbox.pending(10_000)).length;
    const unknown = await deliver([
      {
        id: 'EVUNKNOWN1',
        created_at: at,
        resource_type: 'payments',
        action: 'brand_new_action',
        links: { payment: started.providerPaymentId },
      },
    ]);
    expect(unknown).toEqual({ outcome: 'ignored', eventId: 'EVUNKNOWN1' });
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({ providerId: provider.id, outcome: 'ignored' })).toBe(1);

    const mandates = h.store.collection<any>(MANDATES);
    const failed = [
      { id: 'EVMANDATEFAIL1', created_at: at, resource_type: 'mandates', action: 'failed', links: { mandate: md } },
    ];
    expect(await deliver(failed)).toEqual({ outcome: 'accepted', eventId: 'EVMANDATEFAIL1' });
    expect(await deliver(failed)).toEqual({ outcome: 'duplicate', eventId: 'EVMANDATEFAIL1' });
    // A late `active` does not bring a failed mandate back.
    expect(
      (
        await deliver([
          { id: 'EVMANDATEACT1', created_at: at, resource_type: 'mandates', action: 'active', links: { mandate: md } },
        ])
      ).outcome,
    ).toBe('accepted');
    expect(await mandates.findOne({ providerId: provider.id, providerMandateId: md })).toMatchObject({
      status: 'failed',
      lastEventId: 'EVMANDATEFAIL1',
      organizationId: provider.organizationId,
    });
    expect((await h.store.outbox.pending(10_000)).length).toBe(outboxBefore);

    // Another account's record cannot record this account's mandate.
    const other = creds();
    const otherProvider = await testProvider(h.deps, 'provider_c', 'Other', other);
    const cross = [
      { id: 'EVMANDATECAN1', created_at: at, resource_type: 'mandates', action: 'cancelled', links: { mandate: md } },
    ];
    await expect(deliver(cross, other.webhookSecret, otherProvider.id)).rejects.toBeInstanceOf(ValidationError);
    expect(await mandates.count({ providerId: otherProvider.id })).toBe(0);
  });
});
