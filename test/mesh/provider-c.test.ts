import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const address = (email: string) => ({
  name: 'Erika Buyer',
  email,
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
});
const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');

/**
 * provider_c (direct debit) end to end: the buyer authorises a mandate on the sandbox's page and is
 * sent back; the hosted checkout marks the transaction pending (`mark-pending`) while the collection
 * runs; the sandbox's signed webhooks (`Webhook-Signature`) then settle it, and the transaction, the
 * merchant's IPN, the linked invoice, its credit notes and customer holds follow.
 */
describe('provider_c direct debit', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; accessToken: string; webhookSecret: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  async function sandboxCall(method: string, path: string, body?: unknown, token = provider.accessToken) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
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
  /** The webhook the sandbox sent with `action` about `resource`, once every attempt so far got a 2xx. */
  async function webhookWith(resource: string, action: string): Promise<{ id: string; events: any[]; calls: any[] }> {
    return eventually(async () => {
      const list = (await sandboxCall('GET', `/_sandbox/webhooks?resource=${resource}`)).body.webhooks as any[];
      return list.find((w) => w.events.some((e: any) => e.action === action) && w.calls.some((c: any) => c.ok));
    }, 20_000);
  }
  const hook = (providerId: string, body: string, headers: Record<string, string>) =>
    fetch(`${mesh.publicRootUrl}/hooks/provider_c/${providerId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const duplicates = (eventId: string) =>
    mesh.logs('payments-webhooks').filter((l) => l.includes(eventId) && l.includes('duplicate provider event delivery'))
      .length;

  async function checkout(amount: number, ipnPath: string, email: string): Promise<string> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount,
      currency: 'EUR',
      email,
      externalReference: `order${ipnPath.replace(/\//g, '-')}`,
      ipnUrl: `${ipnBase}${ipnPath}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return c.body.sessionPublicId as string;
  }

  /**
   * The buyer starts the payment, authorises the mandate on the sandbox page with `decision`, comes
   * back and the hosted checkout marks the transaction pending; the banks answer when `collect` runs.
   */
  async function buyerPays(
    sessionPublicId: string,
    decision: 'confirmed' | 'failed',
    email: string,
  ): Promise<{ transactionId: string; pm: string }> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: address(email) },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const redirectUrl = t.body.redirectUrl as string;
    expect(redirectUrl).toMatch(new RegExp(`^${sandbox}/flow/BRF`));
    const pm = (await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId as string;
    expect(pm).toMatch(/^PM/);
    const page = await fetch(redirectUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${decision}"`);
    const decided = await fetch(redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `decision=${decision}`,
    });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toMatch(/^https:\/\/shop\.example\/thanks$|transactionId=/);
    const pending = await api('POST', `${pub}/transactions/${transactionId}/mark-pending`, {
      body: { sessionPublicId },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body).toEqual({ transactionId, status: 0, subState: 'pending_provider' });
    expect((await sandboxCall('POST', `/_sandbox/payments/${pm}/collect`, {})).status).toBe(200);
    return { transactionId, pm };
  }

  async function paidInvoice(email: string) {
    const client = await adminCall('POST', '/clients', {
      name: 'Erika Buyer',
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
    const { transactionId, pm } = await buyerPays(link.body.sessionPublicId, 'confirmed', email);
    await waitStatus(transactionId, 1);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoice.id}`)).body.status === 'paid', 20_000);
    return { invoice, transactionId, pm };
  }

  const creditNotesOf = (invoiceId: string) =>
    eventually(async () => {
      const n = (await adminCall('GET', `/credit-notes?invoiceId=${invoiceId}&limit=100`)).body.items as any[];
      return n.length > 0 ? n : undefined;
    }, 20_000);

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-c']!;
    ipnBase = await receiver.start();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_c!;
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  it('bootstrap creates a provider_c record whose credentials are masked', async () => {
    const rec = await adminCall('GET', `/providers/${provider.id}`);
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({
      type: 'provider_c',
      credentialHints: {
        accessToken: `live_…${provider.accessToken.slice(-4)}`,
        webhookSecret: `…${provider.webhookSecret.slice(-4)}`,
      },
    });
    expect(JSON.stringify(rec.body)).not.toContain(provider.webhookSecret);
  });

  it('the buyer pays by direct debit: pending while collected, then exactly one signed IPN with status 1', async () => {
    const { transactionId, pm } = await buyerPays(
      await checkout(2500, '/ipn/paid', 'paid@example.com'),
      'confirmed',
      'paid@example.com',
    );
    await waitStatus(transactionId, 1);
    await eventually(() => ipnsAt('/ipn/paid').length >= 1, 20_000);
    // The same webhook sent again (same events, same signature) is a duplicate and sends nothing more.
    const confirmed = await webhookWith(pm, 'confirmed');
    const eventId = confirmed.events.find((e: any) => e.action === 'confirmed').id as string;
    expect((await sandboxCall('POST', `/_sandbox/webhooks/${confirmed.id}/resend`, { times: 2 })).status).toBe(200);
    await eventually(() => duplicates(eventId) >= 2, 20_000);
    const ipns = ipnsAt('/ipn/paid');
    expect(ipns).toHaveLength(1);
    expect(JSON.parse(ipns[0]!.rawBody.toString())).toMatchObject({ status: 1 });
    expect(verifyIpn(boot.webhookSigningSecret, ipns[0]!.headers, ipns[0]!.rawBody, 300).valid).toBe(true);
  });

  it('POST /billing-requests/create starts the mandate billing request and answers where to send the buyer', async () => {
    const sessionPublicId = await checkout(3000, '/ipn/brq', 'brq@example.com');
    const bad = await api('POST', `${pub}/billing-requests/create`, {
      body: { sessionPublicId },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(bad.status).toBe(400);
    const res = await api('POST', `${pub}/billing-requests/create`, {
      body: { sessionPublicId, billingAddress: address('brq@example.com') },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 0,
      providerType: 'provider_c',
      redirectUrl: expect.stringMatching(new RegExp(`^${sandbox}/flow/BRF`)),
    });
    const transactionId = res.body.transactionId as string;
    const record = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(record).toMatchObject({ providerId: provider.id, providerPaymentId: expect.stringMatching(/^PM/) });
    const decided = await fetch(res.body.redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=confirmed',
    });
    expect(decided.status).toBe(303);
    expect(
      (
        await api('POST', `${pub}/transactions/${transactionId}/mark-pending`, {
          body: { sessionPublicId },
          headers: { origin: MAIN_FRONTEND },
        })
      ).status,
    ).toBe(200);
    expect((await sandboxCall('POST', `/_sandbox/payments/${record.providerPaymentId}/collect`, {})).status).toBe(200);
    await waitStatus(transactionId, 1);
    await eventually(() => ipnStatuses('/ipn/brq').includes(1), 20_000);
    expect(ipnStatuses('/ipn/brq')).toEqual([1]);
  });

  it('a failed collection gives status 2', async () => {
    const { transactionId } = await buyerPays(
      await checkout(1500, '/ipn/failed', 'failed@example.com'),
      'failed',
      'failed@example.com',
    );
    await waitStatus(transactionId, 2);
    await eventually(() => ipnStatuses('/ipn/failed').includes(2), 20_000);
    expect(ipnStatuses('/ipn/failed')).toEqual([2]);
  });

  it('forged, stale, replayed and cross-tenant webhooks answer 400 or change nothing; unknown events 200; malformed never 500', async () => {
    const { transactionId, pm } = await buyerPays(
      await checkout(1000, '/ipn/edges', 'edges@example.com'),
      'confirmed',
      'edges@example.com',
    );
    await waitStatus(transactionId, 1);
    const event = (over: Record<string, unknown>) => ({
      id: `EV${Date.now()}${Math.floor(Math.random() * 1e6)}`,
      created_at: new Date().toISOString(),
      resource_type: 'payments',
      links: { payment: pm },
      ...over,
    });
    const failed = JSON.stringify({ events: [event({ action: 'failed' })] });
    // Forged: right body, signed with another secret; no signature at all.
    expect(
      (await hook(provider.id, failed, { 'webhook-signature': sign(failed, 'not-the-endpoint-secret') })).status,
    ).toBe(400);
    expect((await hook(provider.id, failed, {})).status).toBe(400);
    // Stale: signed correctly, but the event is older than the accepted window.
    const stale = JSON.stringify({
      events: [event({ action: 'failed', created_at: new Date(Date.now() - 8 * 24 * 3600_000).toISOString() })],
    });
    expect((await hook(provider.id, stale, { 'webhook-signature': sign(stale, provider.webhookSecret) })).status).toBe(
      400,
    );
    // Cross-tenant: another merchant's record; with this record's signature, and with its own naming this payment.
    const other = (await mesh.bootstrap()).providers!.provider_c!;
    expect((await hook(other.id, failed, { 'webhook-signature': sign(failed, provider.webhookSecret) })).status).toBe(
      400,
    );
    expect((await hook(other.id, failed, { 'webhook-signature': sign(failed, other.webhookSecret) })).status).toBe(400);
    // Malformed bodies, correctly signed.
    for (const body of [
      '',
      '{not json',
      '{"events":[]}',
      '{"events":[{"id":"x"}]}',
      '[]',
      JSON.stringify({ events: [event({ links: {}, action: 'failed' })] }),
    ]) {
      expect((await hook(provider.id, body, { 'webhook-signature': sign(body, provider.webhookSecret) })).status).toBe(
        400,
      );
    }
    // Unknown event type: acknowledged, recorded, no effect.
    const unknown = JSON.stringify({ events: [event({ action: 'brand_new_action' })] });
    expect(
      (await hook(provider.id, unknown, { 'webhook-signature': sign(unknown, provider.webhookSecret) })).status,
    ).toBe(200);
    // Replayed: a delivery the sandbox really sent, handed in again.
    const confirmed = await webhookWith(pm, 'confirmed');
    expect((await sandboxCall('POST', `/_sandbox/webhooks/${confirmed.id}/resend`, {})).status).toBe(200);
    await eventually(() => duplicates(confirmed.events.find((e: any) => e.action === 'confirmed').id) >= 1, 20_000);
    expect(await statusOf(transactionId)).toBe(1);
    expect(ipnStatuses('/ipn/edges')).toEqual([1]);
  });

  it('a refund of an invoice payment gives exactly ONE credit note although the sandbox sends the webhook three times', async () => {
    const { invoice, transactionId, pm } = await paidInvoice('refund@example.com');
    const refund = await sandboxCall('POST', '/refunds', {
      refunds: { amount: 11900, total_amount_confirmation: 11900, links: { payment: pm } },
    });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    const rf = refund.body.refunds.id as string;
    const created = await webhookWith(rf, 'created');
    expect((await sandboxCall('POST', `/_sandbox/webhooks/${created.id}/resend`, { times: 3 })).status).toBe(200);
    await eventually(() => duplicates(created.events[0].id) >= 3, 20_000);
    const inv = await eventually(async () => {
      const i = (await adminCall('GET', `/invoices/${invoice.id}`)).body;
      return i.amountDue === 11900 ? i : undefined;
    }, 20_000);
    expect(inv.status).toBe('issued');
    const notes = await creditNotesOf(invoice.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 11900 } });
  });

  it('a chargeback makes the transaction disputed (IPN 4); cancelled by the bank (won) it restores status 1', async () => {
    const { transactionId, pm } = await buyerPays(
      await checkout(5000, '/ipn/won', 'won@example.com'),
      'confirmed',
      'won@example.com',
    );
    await waitStatus(transactionId, 1);
    expect((await sandboxCall('POST', `/_sandbox/payments/${pm}/charge_back`, {})).status).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/payments/${pm}/close_chargeback`, { outcome: 'won' })).status).toBe(
      200,
    );
    await waitStatus(transactionId, 1);
    await eventually(() => ipnStatuses('/ipn/won').length >= 3, 20_000);
    expect(ipnStatuses('/ipn/won')).toEqual([1, 4, 1]);
    const view = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(view.statusHistory.map((h: any) => h.trigger).slice(-2)).toEqual([
      'provider_dispute_open',
      'provider_dispute_won',
    ]);
    expect((await adminCall('GET', `/customer-holds?transactionId=${transactionId}`)).body.items).toEqual([]);
  });

  it('a settled chargeback (lost) of an invoice payment writes ONE chargeback credit note and a hold; the next checkout of that buyer answers 409', async () => {
    const email = 'lost@example.com';
    const { invoice, transactionId, pm } = await paidInvoice(email);
    expect((await sandboxCall('POST', `/_sandbox/payments/${pm}/charge_back`, {})).status).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/payments/${pm}/close_chargeback`, { outcome: 'lost' })).status).toBe(
      200,
    );
    const settled = await webhookWith(pm, 'chargeback_settled');
    expect((await sandboxCall('POST', `/_sandbox/webhooks/${settled.id}/resend`, { times: 2 })).status).toBe(200);
    await eventually(() => duplicates(settled.events[0].id) >= 2, 20_000);
    const notes = await creditNotesOf(invoice.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', transactionId, totals: { gross: 11900 } });
    const holds = await eventually(async () => {
      const list = (await adminCall('GET', `/customer-holds?transactionId=${transactionId}`)).body.items as any[];
      return list.length ? list : undefined;
    }, 20_000);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      status: 'active',
      source: { transactionId, chargebackId: `${pm}:chargeback`, outcome: 'lost', decidedBy: 'provider' },
    });
    expect(await statusOf(transactionId)).toBe(4);
    // The hold makes the same buyer's next checkout answer the documented 409 (e-mail compared case-insensitively).
    const blocked = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      externalReference: 'order-after-hold-c',
      email: email.toUpperCase(),
    });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(409);
    expect(blocked.body.code).toBe('CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
    expect(blocked.body.requestId).toBeTruthy();
    expect(blocked.body.requestId).toBe(blocked.headers.get('x-request-id'));
  });
});
