import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = { name: 'Erika Buyer', email: 'erika@example.com', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' };

/**
 * Reconciliation: the provider_b sandbox loses the webhook of a payment, the reconciler in
 * payments-webhooks asks the provider and completes the transaction through the webhook's claimed
 * path; the webhook arriving late changes nothing. Short reconcile ages keep it fast.
 */
describe('reconciliation', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; apiKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) => api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  async function sandboxCall(method: string, path: string, body?: unknown) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: { authorization: `Bearer ${provider.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const statusOf = async (transactionId: string) => (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const ipnStatuses = (path: string) => receiver.at(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);
  const webhookCalls = async (tr: string) => (await sandboxCall('GET', `/_sandbox/webhook-calls?payment=${tr}`)).body._embedded.calls as Array<{ ok: boolean; error: string | null }>;

  async function checkout(amount: number, ipnPath: string): Promise<string> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, { amount, currency: 'EUR', externalReference: `order${ipnPath.replace(/\//g, '-')}`, ipnUrl: `${ipnBase}${ipnPath}`, returnUrl: 'https://shop.example/thanks' });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return c.body.sessionPublicId as string;
  }

  async function startPayment(sessionPublicId: string): Promise<{ transactionId: string; tr: string; redirectUrl: string }> {
    const t = await api('POST', `${pub}/transactions/create`, { body: { sessionPublicId, providerId: provider.id, billingAddress: billing }, headers: { origin: MAIN_FRONTEND } });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const redirectUrl = t.body.redirectUrl as string;
    return { transactionId: t.body.transactionId as string, tr: redirectUrl.split('/').at(-1)!, redirectUrl };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND, RECONCILE_MIN_PENDING_AGE_MS: '300', RECONCILE_INTERVAL_MS: '300', RECONCILE_BATCH_SIZE: '5', TRANSACTION_ABANDON_AFTER_MS: '4000', EXPIRY_INTERVAL_MS: '300' },
    });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-b']!;
    ipnBase = await receiver.start();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_b!;
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  it('a payment whose webhook the sandbox drops is completed by the reconciler; the late webhook changes nothing', async () => {
    expect((await sandboxCall('POST', '/_sandbox/webhooks/drop', { enabled: true })).status).toBe(200);
    const { transactionId, tr, redirectUrl } = await startPayment(await checkout(2500, '/ipn/reconciled'));
    const decided = await fetch(redirectUrl, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'status=paid' });
    expect(decided.status).toBe(303);
    // The provider has it paid, but its webhook was lost.
    expect((await sandboxCall('GET', `/v2/payments/${tr}`)).body.status).toBe('paid');
    expect(await webhookCalls(tr)).toMatchObject([{ ok: false, error: 'dropped by sandbox control' }]);

    await eventually(async () => (await statusOf(transactionId)) === 1, 30_000);
    await eventually(() => ipnStatuses('/ipn/reconciled').length >= 1, 20_000);
    expect(mesh.logs('payments-webhooks').some((l) => l.includes(tr) && l.includes('reconciler applied a missed provider outcome'))).toBe(true);
    expect((await webhookCalls(tr)).filter((c) => c.ok)).toHaveLength(0);

    // The webhook arrives late: claimed as a duplicate of the reconciled outcome; nothing changes.
    await sandboxCall('POST', '/_sandbox/webhooks/drop', { enabled: false });
    expect((await sandboxCall('POST', `/_sandbox/payments/${tr}/webhook`, { times: 1 })).status).toBe(200);
    await eventually(async () => (await webhookCalls(tr)).some((c) => c.ok), 20_000);
    await eventually(() => mesh.logs('payments-webhooks').some((l) => l.includes(`${tr}:paid`) && l.includes('duplicate provider event delivery')), 20_000);
    expect(await statusOf(transactionId)).toBe(1);
    expect(ipnStatuses('/ipn/reconciled')).toEqual([1]);
    const tx = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(tx.status).toBe(1);
  });

  it('provider_a: a dropped payment_intent.succeeded is replaced by the reconciler; the event delivered late is a duplicate', async () => {
    const a = boot.providers!.provider_a!;
    const sandboxA = mesh.sandboxUrls['sandbox-provider-a']!;
    const callA = async (method: string, path: string, form?: Record<string, string>) => {
      const res = await fetch(`${sandboxA}${path}`, {
        method,
        headers: { authorization: `Bearer ${a.secretKey}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await callA('POST', '/_sandbox/webhooks/drop', { enabled: 'true' })).status).toBe(200);
    const sessionPublicId = await checkout(3100, '/ipn/reconciled-a');
    const t = await api('POST', `${pub}/transactions/create`, { body: { sessionPublicId, providerId: a.id, billingAddress: billing }, headers: { origin: MAIN_FRONTEND } });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const pi = (await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId as string;
    expect((await callA('POST', `/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' })).status).toBe(200);
    const event = ((await callA('GET', '/v1/events?type=payment_intent.succeeded&limit=100')).body.data as any[]).find((e) => e.data.object.id === pi);
    expect(event).toBeDefined();
    expect((await callA('GET', `/_sandbox/deliveries?event=${event.id}`)).body.data).toMatchObject([{ ok: false, error: 'dropped by sandbox control' }]);

    await eventually(async () => (await statusOf(transactionId)) === 1, 30_000);
    await eventually(() => ipnStatuses('/ipn/reconciled-a').length >= 1, 20_000);

    await callA('POST', '/_sandbox/webhooks/drop', { enabled: 'false' });
    expect((await callA('POST', `/_sandbox/events/${event.id}/resend`)).status).toBe(200);
    await eventually(async () => ((await callA('GET', `/_sandbox/deliveries?event=${event.id}`)).body.data as any[]).some((d) => d.ok), 20_000);
    await eventually(() => mesh.logs('payments-webhooks').some((l) => l.includes(event.id) && l.includes('duplicate provider event delivery')), 20_000);
    expect(await statusOf(transactionId)).toBe(1);
    expect(ipnStatuses('/ipn/reconciled-a')).toEqual([1]);
  });

  it('a payment still open at the provider is never guessed; once abandoned, the provider cancels it and it expires with its IPN', async () => {
    const { transactionId, tr } = await startPayment(await checkout(1200, '/ipn/open'));
    // Several looks happen (the reconciler logs each), none changes the transaction.
    await eventually(() => mesh.logs('payments-webhooks').filter((l) => l.includes(tr) && l.includes('reconciler look: nothing new')).length >= 2, 20_000);
    expect(await statusOf(transactionId)).toBe(0);
    expect(ipnStatuses('/ipn/open')).toEqual([]);

    // Pending past TRANSACTION_ABANDON_AFTER_MS: cancelled at the provider (only the expiry worker
    // cancels here), then canceled (-2) here.
    await eventually(async () => (await statusOf(transactionId)) === -2, 30_000);
    expect((await sandboxCall('GET', `/v2/payments/${tr}`)).body.status).toBe('canceled');
    await eventually(() => ipnStatuses('/ipn/open').length >= 1, 20_000);
    // The provider's cancellation webhook follows (it may even overtake the expiry's own write, or
    // a reconciler look may report the cancellation first): either way one IPN, status -2.
    await eventually(async () => (await webhookCalls(tr)).some((c) => c.ok), 20_000);
    const handled = await eventually(
      () => mesh.logs('payments-webhooks').find((l) => l.includes(`${tr}:canceled`) && (l.includes('provider event reported') || l.includes('duplicate provider event delivery'))),
      20_000,
    );
    if (handled.includes('provider event reported')) await eventually(() => mesh.logs('checkout').some((l) => l.includes(`${tr}:canceled`)), 20_000);
    expect(await statusOf(transactionId)).toBe(-2);
    expect(ipnStatuses('/ipn/open')).toEqual([-2]);
  });
});
