import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = {
  name: 'Pat Wallet',
  email: 'pat@example.com',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

type App = { id: string; clientId: string; clientSecret: string };

/**
 * provider_d (wallet orders) end to end: the buyer approves the order on the sandbox's pay page;
 * the approval webhook reaches payments-webhooks, which verifies it through the provider's
 * verification API, claims it and captures the order; the capture, refund and dispute events
 * then drive the transaction, the merchant's IPN, the linked invoice, its credit notes and holds.
 */
describe('provider_d wallet orders', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: App;
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  async function sandboxCall(method: string, path: string, body?: unknown, app: App = provider) {
    const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
    const tok = await fetch(`${sandbox}/v1/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token } = (await tok.json()) as { access_token: string };
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${access_token}`,
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
  /** Delivery attempts the sandbox made for an event. */
  const deliveries = async (eventId: string) =>
    (await sandboxCall('GET', `/_sandbox/webhook-calls?event=${eventId}`)).body.calls as any[];
  const eventsOf = async (type: string) =>
    (await sandboxCall('GET', `/_sandbox/events?event_type=${type}`)).body.events as any[];
  const hook = (providerId: string, body: string | Buffer, headers: Record<string, string>) =>
    fetch(`${mesh.publicRootUrl}/hooks/provider_d/${providerId}`, { method: 'POST', headers, body });

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

  async function invoiceCheckout(email: string): Promise<{ invoiceId: string; sessionPublicId: string }> {
    const client = await adminCall('POST', '/clients', {
      name: 'Pat Wallet',
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
    // A new draft for this client each time: every case counts the credit notes of its own invoice.
    expect(draft.body).toMatchObject({ status: 'draft', clientId: client.body.id, creditNoteIds: [] });
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    return { invoiceId: invoice.id as string, sessionPublicId: link.body.sessionPublicId as string };
  }

  /** Starts the buyer's payment and follows the redirect to the sandbox's pay page, where the buyer approves (or pays with declining funding). */
  async function buyerPays(
    sessionPublicId: string,
    action: 'approve' | 'decline',
    email = billing.email,
  ): Promise<{ transactionId: string; order: string }> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: { ...billing, email } },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const redirectUrl = t.body.redirectUrl as string;
    expect(redirectUrl).toMatch(new RegExp(`^${sandbox}/checkoutnow\\?token=[A-Z0-9]+$`));
    const order = new URL(redirectUrl).searchParams.get('token')!;
    expect((await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId).toBe(order);
    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${action}"`);
    const decided = await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `action=${action}`,
    });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toContain(`token=${order}`);
    return { transactionId, order };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-d']!;
    ipnBase = await receiver.start();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_d!;
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  it('bootstrap creates a provider_d record with a registered webhook; its secret is masked', async () => {
    const rec = await adminCall('GET', `/providers/${provider.id}`);
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({ type: 'provider_d' });
    expect(JSON.stringify(rec.body)).not.toContain(provider.clientSecret);
  });

  it('the buyer approves on the pay page: the order is captured and the merchant receives exactly one signed IPN with status 1', async () => {
    const { transactionId, order } = await buyerPays(await checkout(2500, '/ipn/paid'), 'approve');
    await waitStatus(transactionId, 1);
    await eventually(() => ipnsAt('/ipn/paid').length >= 1, 20_000);
    const o = await sandboxCall('GET', `/v2/checkout/orders/${order}`);
    expect(o.body.status).toBe('COMPLETED');
    const captureId = o.body.purchase_units[0].payments.captures[0].id as string;
    // The provider's capture event follows our capture: a duplicate of it.
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .some((l) => l.includes(`${captureId}:COMPLETED`) && l.includes('duplicate provider event delivery')),
      20_000,
    );
    // The approval resent twice: claimed before, the payment is settled, nothing is captured again.
    const approved = (await eventsOf('CHECKOUT.ORDER.APPROVED')).find((e) => e.resource.id === order);
    expect((await sandboxCall('POST', `/_sandbox/events/${approved.id}/resend`, { times: 2 })).status).toBe(200);
    await eventually(async () => (await deliveries(approved.id)).filter((c) => c.ok).length >= 3, 20_000);
    const ipns = ipnsAt('/ipn/paid');
    expect(ipns).toHaveLength(1);
    expect(JSON.parse(ipns[0]!.rawBody.toString())).toMatchObject({ status: 1 });
    expect(verifyIpn(boot.webhookSigningSecret, ipns[0]!.headers, ipns[0]!.rawBody, 300).valid).toBe(true);
  });

  it('a payment whose capture is declined gives status 2', async () => {
    const { transactionId } = await buyerPays(await checkout(1500, '/ipn/failed'), 'decline');
    await waitStatus(transactionId, 2);
    await eventually(() => ipnStatuses('/ipn/failed').includes(2), 20_000);
    expect(ipnStatuses('/ipn/failed')).toEqual([2]);
  });

  it('forged, stale, replayed and cross-tenant webhooks answer 400 and change nothing; unknown types 200 without effect; malformed bodies never 500', async () => {
    const { transactionId, order } = await buyerPays(await checkout(1000, '/ipn/bad'), 'approve');
    await waitStatus(transactionId, 1);
    const approved = (await eventsOf('CHECKOUT.ORDER.APPROVED')).find((e) => e.resource.id === order);
    const real = (await deliveries(approved.id)).find((c) => c.ok);
    const history = async () =>
      (await adminCall('GET', `/transactions/${transactionId}`)).body.statusHistory.length as number;
    const before = await history();

    const forged = await hook(provider.id, real.body, {
      ...real.headers,
      'paypal-transmission-sig': Buffer.from('forged').toString('base64'),
    });
    expect(forged.status).toBe(400);
    const tampered = await hook(provider.id, real.body.replace(order, 'AAAAAAAAAAAAAAAAA'), real.headers);
    expect(tampered.status).toBe(400);
    // Stale: the provider's own delivery, transmitted an hour ago.
    expect(
      (
        await sandboxCall('POST', `/_sandbox/events/${approved.id}/resend`, {
          times: 1,
          transmission_time: new Date(Date.now() - 3_600_000).toISOString(),
        })
      ).status,
    ).toBe(200);
    await eventually(async () => (await deliveries(approved.id)).some((c) => c.status_code === 400), 20_000);
    // Replayed verbatim: authentic and fresh, but claimed before: answered, nothing happens.
    const replay = await hook(provider.id, real.body, real.headers);
    expect(replay.status).toBe(200);
    // Another merchant's record handed this delivery: its webhook id does not verify it.
    const other = await mesh.bootstrap();
    const cross = await hook(other.providers!.provider_d!.id, real.body, real.headers);
    expect(cross.status).toBe(400);
    for (const [body, headers] of [
      ['', { 'content-type': 'application/json' }],
      ['{not json', { ...real.headers }],
      ['[]', { ...real.headers }],
      ['{"id":"WH-1"}', { 'content-type': 'application/json' }],
    ] as const) {
      expect((await hook(provider.id, body, headers)).status).toBe(400);
    }
    expect(await history()).toBe(before);
    expect(ipnStatuses('/ipn/bad')).toEqual([1]);

    // An event type the platform does not know: 200, recorded, no effect.
    const unknown = await sandboxCall('POST', '/_sandbox/events', {
      event_type: 'BILLING.SUBSCRIPTION.CREATED',
      resource: { id: 'I-SUB1' },
    });
    expect(unknown.status).toBe(200);
    await eventually(async () => (await deliveries(unknown.body.id)).some((c) => c.status_code === 200), 20_000);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .some((l) => l.includes(unknown.body.id) && l.includes('acknowledged without effect')),
      20_000,
    );
  });

  it('a refund of an invoice payment gives exactly ONE credit note although the sandbox sends the webhook three times', async () => {
    const { invoiceId, sessionPublicId } = await invoiceCheckout('refund@example.com');
    const { transactionId, order } = await buyerPays(sessionPublicId, 'approve', 'refund@example.com');
    await waitStatus(transactionId, 1);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoiceId}`)).body.status === 'paid', 20_000);
    const captureId = (await sandboxCall('GET', `/v2/checkout/orders/${order}`)).body.purchase_units[0].payments
      .captures[0].id as string;
    const refund = await sandboxCall('POST', `/v2/payments/captures/${captureId}/refund`, {
      amount: { currency_code: 'EUR', value: '119.00' },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    await eventually(async () => {
      const r = (await adminCall('GET', `/transactions/${transactionId}`)).body;
      return (r.refunds ?? []).reduce((n: number, x: any) => n + x.amount, 0) >= r.amount;
    }, 20_000);
    // A refund never changes the status by itself.
    expect(await statusOf(transactionId)).toBe(1);
    const event = (await eventsOf('PAYMENT.CAPTURE.REFUNDED')).find((e) => e.resource.id === refund.body.id);
    expect((await sandboxCall('POST', `/_sandbox/events/${event.id}/resend`, { times: 2 })).status).toBe(200);
    await eventually(async () => (await deliveries(event.id)).filter((c) => c.ok).length >= 3, 20_000);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter(
            (l) => l.includes(`${String(refund.body.id)}:COMPLETED`) && l.includes('duplicate provider event delivery'),
          ).length >= 2,
      20_000,
    );
    const inv = await eventually(async () => {
      const i = (await adminCall('GET', `/invoices/${invoiceId}`)).body;
      return i.amountDue === 11900 ? i : undefined;
    }, 20_000);
    expect(inv.status).toBe('issued');
    const notes = await eventually(async () => {
      const n = (await adminCall('GET', `/credit-notes?invoiceId=${invoiceId}&limit=100`)).body.items as any[];
      return n.length > 0 ? n : undefined;
    }, 20_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 11900 } });
  });

  it('a lost dispute of an invoice payment writes ONE chargeback credit note and a hold; the next checkout of that buyer answers 409', async () => {
    const email = 'lost-wallet@example.com';
    const { invoiceId, sessionPublicId } = await invoiceCheckout(email);
    const { transactionId, order } = await buyerPays(sessionPublicId, 'approve', email);
    await waitStatus(transactionId, 1);
    const dispute = await sandboxCall('POST', `/_sandbox/orders/${order}/disputes`, {});
    expect(dispute.status, JSON.stringify(dispute.body)).toBe(200);
    await waitStatus(transactionId, 4);
    expect(
      (
        await sandboxCall('POST', `/v1/customer/disputes/${dispute.body.dispute_id}/adjudicate`, {
          adjudication_outcome: 'BUYER_FAVOR',
        })
      ).status,
    ).toBe(200);
    const holds = await eventually(async () => {
      const list = (await adminCall('GET', `/customer-holds?transactionId=${transactionId}`)).body.items as any[];
      return list.length ? list : undefined;
    }, 20_000);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      status: 'active',
      source: { transactionId, chargebackId: dispute.body.dispute_id, outcome: 'lost', decidedBy: 'provider' },
    });
    const notes = await eventually(async () => {
      const items = (await adminCall('GET', `/credit-notes?invoiceId=${invoiceId}`)).body.items as any[];
      return items.length ? items : undefined;
    }, 20_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', transactionId });
    // The hold makes the same buyer's next checkout answer the documented 409 (e-mail compared case-insensitively).
    const blocked = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      externalReference: 'order-after-hold-d',
      email: email.toUpperCase(),
    });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(409);
    expect(blocked.body.code).toBe('CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
    expect(blocked.body.requestId).toBeTruthy();
    expect(blocked.body.requestId).toBe(blocked.headers.get('x-request-id'));
  });

  it('a dispute makes the transaction disputed (IPN 4); won it restores status 1', async () => {
    const { transactionId, order } = await buyerPays(await checkout(5000, '/ipn/won'), 'approve');
    await waitStatus(transactionId, 1);
    const dispute = await sandboxCall('POST', `/_sandbox/orders/${order}/disputes`, {});
    await waitStatus(transactionId, 4);
    expect(
      (
        await sandboxCall('POST', `/v1/customer/disputes/${dispute.body.dispute_id}/adjudicate`, {
          adjudication_outcome: 'SELLER_FAVOR',
        })
      ).status,
    ).toBe(200);
    await waitStatus(transactionId, 1);
    await eventually(() => ipnStatuses('/ipn/won').length >= 3, 20_000);
    expect(ipnStatuses('/ipn/won')).toEqual([1, 4, 1]);
    const history = (await adminCall('GET', `/transactions/${transactionId}`)).body.statusHistory.map(
      (h: any) => h.trigger,
    );
    expect(history.slice(-2)).toEqual(['provider_dispute_open', 'provider_dispute_won']);
  });
});
