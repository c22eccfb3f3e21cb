import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = {
  name: 'Erika Buyer',
  email: 'erika@example.com',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

/**
 * provider_b (redirect payments) end to end: the buyer is sent to the sandbox's checkout page and
 * decides there; the sandbox calls the record's webhook with only `id=tr_…`, payments-webhooks
 * fetches the payment with the record's key, and the transaction, the merchant's IPN, the linked
 * invoice and its credit notes follow.
 */
describe('provider_b redirect payments', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; apiKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  async function sandboxCall(method: string, path: string, body?: unknown) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const waitStatus = (transactionId: string, status: number) =>
    eventually(async () => (await statusOf(transactionId)) === status, 20_000);
  const ipnsAt = (path: string) => receiver.at(path);
  const ipnStatuses = (path: string) => ipnsAt(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);
  /** Successful webhook calls the sandbox made for a payment. */
  const calls = async (tr: string) =>
    ((await sandboxCall('GET', `/_sandbox/webhook-calls?payment=${tr}`)).body._embedded.calls as any[]).filter(
      (c) => c.ok,
    ).length;

  async function checkout(amount: number, ipnPath: string): Promise<string> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount,
      currency: 'EUR',
      externalReference: `order${ipnPath.replace(/\//g, '-')}`,
      ipnUrl: `${ipnBase}${ipnPath}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return c.body.sessionPublicId as string;
  }

  /** Starts the buyer's payment and follows the redirect to the sandbox's checkout page, where the buyer picks `status`. */
  async function buyerPays(
    sessionPublicId: string,
    status: 'paid' | 'failed',
    email = billing.email,
  ): Promise<{ transactionId: string; tr: string }> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: { ...billing, email } },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const redirectUrl = t.body.redirectUrl as string;
    expect(redirectUrl).toMatch(new RegExp(`^${sandbox}/checkout/tr_`));
    const tr = redirectUrl.split('/').at(-1)!;
    expect((await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId).toBe(tr);
    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${status}"`);
    const decided = await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `status=${status}`,
    });
    expect(decided.status).toBe(303);
    // Back to the merchant's return URL (a payment link's: the hosted checkout, with the transaction).
    expect(decided.headers.get('location')).toMatch(/^https:\/\/shop\.example\/thanks$|transactionId=/);
    return { transactionId, tr };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
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

  it('bootstrap creates a provider_b record whose credentials are masked', async () => {
    const rec = await adminCall('GET', `/providers/${provider.id}`);
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({
      type: 'provider_b',
      credentialHints: { apiKey: `live_…${provider.apiKey.slice(-4)}` },
    });
  });

  it('the buyer pays on the checkout page: the merchant receives exactly one signed IPN with status 1', async () => {
    const { transactionId, tr } = await buyerPays(await checkout(2500, '/ipn/paid'), 'paid');
    await waitStatus(transactionId, 1);
    await eventually(() => ipnsAt('/ipn/paid').length >= 1, 20_000);
    // A callback repeated by the provider is answered as a duplicate and sends nothing more.
    expect((await sandboxCall('POST', `/_sandbox/payments/${tr}/webhook`, { times: 2 })).status).toBe(200);
    await eventually(async () => (await calls(tr)) >= 3, 20_000);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(`${tr}:paid`) && l.includes('duplicate provider event delivery')).length >= 2,
      20_000,
    );
    const ipns = ipnsAt('/ipn/paid');
    expect(ipns).toHaveLength(1);
    expect(JSON.parse(ipns[0]!.rawBody.toString())).toMatchObject({ status: 1 });
    expect(verifyIpn(boot.webhookSigningSecret, ipns[0]!.headers, ipns[0]!.rawBody, 300).valid).toBe(true);
  });

  it('a failed payment gives status 2', async () => {
    const { transactionId } = await buyerPays(await checkout(1500, '/ipn/failed'), 'failed');
    await waitStatus(transactionId, 2);
    await eventually(() => ipnStatuses('/ipn/failed').includes(2), 20_000);
    expect(ipnStatuses('/ipn/failed')).toEqual([2]);
  });

  it('forged and cross-tenant callbacks answer 400 and change nothing; malformed ones never 500', async () => {
    const hook = (id: string, body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${mesh.publicRootUrl}/hooks/provider_b/${id}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
    const unknown = await hook(provider.id, 'id=tr_NobodysPayment1');
    expect(unknown.status).toBe(400);
    for (const [body, type] of [
      ['', undefined],
      ['id=', undefined],
      ['{"id":"tr_x"}', 'application/json'],
      ['id=tr_a&id=tr_b', undefined],
    ] as const) {
      expect((await hook(provider.id, body, type)).status).toBe(400);
    }
    // Another merchant's record, handed this merchant's payment: its key cannot see it.
    const other = await mesh.bootstrap();
    const { tr } = await buyerPays(await checkout(1000, '/ipn/cross'), 'paid');
    expect((await hook(other.providers!.provider_b!.id, `id=${tr}`)).status).toBe(400);
  });

  it('a refund of an invoice payment gives exactly ONE credit note although the sandbox calls the webhook three times', async () => {
    const client = await adminCall('POST', '/clients', {
      name: 'Erika Buyer',
      email: 'erika@example.com',
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const { transactionId, tr } = await buyerPays(link.body.sessionPublicId, 'paid');
    await waitStatus(transactionId, 1);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoice.id}`)).body.status === 'paid', 20_000);

    const refund = await sandboxCall('POST', `/v2/payments/${tr}/refunds`, {
      amount: { currency: 'EUR', value: '119.00' },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    await eventually(async () => {
      const r = (await adminCall('GET', `/transactions/${transactionId}`)).body;
      return (r.refunds ?? []).reduce((n: number, x: any) => n + x.amount, 0) >= r.amount;
    }, 20_000);
    // A refund never changes the status by itself.
    expect(await statusOf(transactionId)).toBe(1);
    const before = await calls(tr);
    expect((await sandboxCall('POST', `/_sandbox/payments/${tr}/webhook`, { times: 3 })).status).toBe(200);
    await eventually(async () => (await calls(tr)) >= before + 3, 20_000);
    const refundEvent = `${String(refund.body.id)}:refunded`;
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(refundEvent) && l.includes('duplicate provider event delivery')).length >= 3,
      20_000,
    );
    const inv = await eventually(async () => {
      const i = (await adminCall('GET', `/invoices/${invoice.id}`)).body;
      return i.amountDue === 11900 ? i : undefined;
    }, 20_000);
    expect(inv.status).toBe('issued');
    const notes = await eventually(async () => {
      const n = (await adminCall('GET', `/credit-notes?invoiceId=${invoice.id}&limit=100`)).body.items as any[];
      return n.length > 0 ? n : undefined;
    }, 20_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 11900 } });
  });

  it('a chargeback makes the transaction disputed (IPN 4); reversed (won) it restores status 1', async () => {
    const { transactionId, tr } = await buyerPays(await checkout(5000, '/ipn/won'), 'paid');
    await waitStatus(transactionId, 1);
    const chb = await sandboxCall('POST', `/_sandbox/payments/${tr}/chargebacks`, { reason: 'MD06' });
    expect(chb.status, JSON.stringify(chb.body)).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/chargebacks/${chb.body.id}/close`, { outcome: 'won' })).status).toBe(
      200,
    );
    await waitStatus(transactionId, 1);
    await eventually(() => ipnStatuses('/ipn/won').length >= 3, 20_000);
    expect(ipnStatuses('/ipn/won')).toEqual([1, 4, 1]);
    const history = (await adminCall('GET', `/transactions/${transactionId}`)).body.statusHistory.map(
      (h: any) => h.trigger,
    );
    expect(history.slice(-2)).toEqual(['provider_dispute_open', 'provider_dispute_won']);
  });

  it('a lost chargeback of an invoice payment writes ONE chargeback credit note and a hold; the next checkout of that buyer answers 409', async () => {
    const email = 'lost-b@example.com';
    const client = await adminCall('POST', '/clients', {
      name: 'Lost Buyer',
      email,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const { transactionId, tr } = await buyerPays(link.body.sessionPublicId, 'paid', email);
    await waitStatus(transactionId, 1);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoice.id}`)).body.status === 'paid', 20_000);
    // Before the chargeback the buyer may check out.
    const ok = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      externalReference: 'order-before-hold',
      email,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const chb = await sandboxCall('POST', `/_sandbox/payments/${tr}/chargebacks`, { reason: 'MD06' });
    expect(chb.status, JSON.stringify(chb.body)).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/chargebacks/${chb.body.id}/close`, { outcome: 'lost' })).status).toBe(
      200,
    );
    // The settled chargeback delivered again is a duplicate.
    const before = await calls(tr);
    expect((await sandboxCall('POST', `/_sandbox/payments/${tr}/webhook`, { times: 2 })).status).toBe(200);
    await eventually(async () => (await calls(tr)) >= before + 2, 20_000);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(`${String(chb.body.id)}:lost`) && l.includes('duplicate provider event delivery'))
          .length >= 2,
      20_000,
    );

    const holds = await eventually(async () => {
      const list = (await adminCall('GET', `/customer-holds?transactionId=${transactionId}`)).body.items as any[];
      return list.length ? list : undefined;
    }, 20_000);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      status: 'active',
      action: 'block',
      buyer: { emails: [email] },
      source: { transactionId, chargebackId: chb.body.id, outcome: 'lost', decidedBy: 'provider' },
    });
    const notes = await eventually(async () => {
      const n = (await adminCall('GET', `/credit-notes?invoiceId=${invoice.id}&limit=100`)).body.items as any[];
      return n.length > 0 ? n : undefined;
    }, 20_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', transactionId, totals: { gross: 11900 } });
    expect(await statusOf(transactionId)).toBe(4);

    const blocked = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      externalReference: 'order-after-hold',
      email: 'Lost-B@Example.com',
    });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(409);
    expect(blocked.body.code).toBe('CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
    expect(blocked.body.requestId).toBeTruthy();
    expect(blocked.body.requestId).toBe(blocked.headers.get('x-request-id'));
  });
});
