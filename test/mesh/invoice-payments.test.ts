import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
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
 * Invoice payment links end to end: an issued invoice -> Admin payment-checkout -> checkout session
 * with the invoice's allocated tax -> buyer pays through the provider_a sandbox -> transaction
 * completed -> billing records the payment; a refund of the transaction raises the outstanding
 * amount again with exactly one credit note.
 */
describe('invoice payment links', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  /** An issued invoice of 2 × 119.00 EUR (gross, 19 % German VAT for a German buyer). */
  async function issuedInvoice(): Promise<any> {
    const client = await adminCall('POST', '/clients', {
      name: 'Erika Buyer',
      email: 'erika@example.com',
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issued = await adminCall('POST', `/invoices/${draft.body.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.totals.gross).toBe(23800);
    return issued.body;
  }

  async function sandboxCall(method: string, path: string, form?: Record<string, string>) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.secretKey}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** The buyer pays a link through the provider_a sandbox; answers the completed transaction's id. */
  async function payLink(sessionPublicId: string): Promise<string> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const record = await adminCall('GET', `/transactions/${transactionId}`);
    const paid = await sandboxCall('POST', `/v1/payment_intents/${record.body.providerPaymentId}/confirm`, {
      payment_method: 'pm_card_visa',
    });
    expect(paid.status).toBe(200);
    await eventually(
      async () => (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status === 1,
      15_000,
    );
    return transactionId;
  }

  const invoiceOf = async (id: string) => (await adminCall('GET', `/invoices/${id}`)).body;
  const creditNotesOf = async (invoiceId: string) =>
    (await adminCall('GET', `/credit-notes?invoiceId=${invoiceId}&limit=100`)).body.items as any[];

  /** Publishes the status event checkout would publish when the transaction is refunded (checkout records no refunds yet). */
  async function publishRefund(invoice: any, transactionId: string, link: any, eventId: string): Promise<void> {
    const subject = 'checkout.transaction.status_changed';
    const tx = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    const data = {
      organizationId: boot.organizationId,
      siteId: boot.siteId,
      transactionId,
      mode: 'live',
      status: 3,
      previousStatus: 1,
      subState: null,
      externalReference: null,
      ipnUrl: null,
      sequence: 99,
      changedAt: new Date().toISOString(),
      amount: tx.amount,
      currency: 'EUR',
      checkoutId: link.checkoutId,
      invoiceId: invoice.id,
    };
    const envelope = { id: eventId, type: subject, version: 1, occurredAt: data.changedAt, data };
    await nc.jetstream().publish(`${mesh.namespace}.${subject}`, JSON.stringify(envelope), {
      msgID: `${eventId}-${randomBytes(4).toString('hex')}`,
    });
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
  });

  afterAll(async () => {
    await nc?.close();
    await mesh?.dispose();
  });

  it('refuses a link of 30 minor units, links for drafts, and expiries out of range, creating nothing', async () => {
    const invoice = await issuedInvoice();
    for (const body of [
      { amount: 30 },
      { amount: 49 },
      { amount: 23801 },
      { expireInHours: 0 },
      { expireInHours: 3121 },
    ]) {
      const res = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(/amount|expireInHours/);
    }
    expect((await invoiceOf(invoice.id)).paymentLinks ?? []).toEqual([]);
    const checkouts = await adminCall('GET', `/checkouts?invoiceNumber=${encodeURIComponent(invoice.number)}`);
    expect(checkouts.body.total).toBe(0);
  });

  it("takes the spec's all-optional bodies left out: payment-checkout and send-email with no body, an empty JSON body or {}", async () => {
    const invoice = await issuedInvoice();
    const raw = (path: string, body?: string) =>
      fetch(`${admin}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${boot.apiKey}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body,
      });
    // No body and no media type at all, as `curl -X POST` sends it: the defaults apply (the outstanding amount, 336 hours).
    const bare = await raw(`/invoices/${invoice.id}/payment-checkout`);
    const link = (await bare.json()) as any;
    expect(bare.status, JSON.stringify(link)).toBe(200);
    expect(link).toMatchObject({ amount: 23800, sessionPublicId: expect.stringMatching(/^cs_/) });
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(335 * 3_600_000);
    // The media type with nothing after it, JSON null and {} mean the same.
    for (const body of ['', 'null', '{}']) {
      const res = await raw(`/invoices/${invoice.id}/payment-checkout`, body);
      expect(res.status, `${JSON.stringify(body)}: ${await res.clone().text()}`).toBe(200);
      expect(((await res.json()) as any).amount).toBe(23800);
    }
    const mail = await raw(`/invoices/${invoice.id}/send-email`);
    expect(mail.status, await mail.clone().text()).toBe(200);
    expect(await mail.json()).toMatchObject({ emailId: expect.any(String) });
    // A body that is sent is still checked, and a route whose fields are required still needs them.
    const bad = await raw(`/invoices/${invoice.id}/payment-checkout`, '{"amount":30}');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-request-id')).toBeTruthy();
    expect(((await bad.json()) as any).error).toMatch(/amount/);
    const noClient = await raw('/clients', '');
    expect(noClient.status).toBe(400);
    expect(Object.keys((await noClient.json()) as object)).toEqual(['error']);
    // The description says so: the body of payment-checkout is not required.
    const doc = (await (await fetch(`${admin}/docs/json`)).json()) as any;
    expect(doc.paths['/api/v1/invoices/{id}/payment-checkout'].post.requestBody.required).toBe(false);
    expect(doc.paths['/api/v1/invoices/{id}/send-email'].post.requestBody.required).toBe(false);
    expect(doc.paths['/api/v1/clients'].post.requestBody.required).toBe(true);
  });

  it('paying a link for the full outstanding amount marks the invoice paid; a further link is 400', async () => {
    const invoice = await issuedInvoice();
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {
      returnUrl: 'https://shop.example/paid/{transactionId}',
    });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body).toMatchObject({
      amount: 23800,
      sessionPublicId: expect.stringMatching(/^cs_/),
      paymentUrl: expect.stringContaining(link.body.sessionPublicId),
    });
    // Default expiry: the invoicing setting's 336 hours.
    expect(Date.parse(link.body.expiresAt) - Date.now()).toBeGreaterThan(335 * 3_600_000);
    const checkout = (await adminCall('GET', `/checkouts/${link.body.checkoutId}`)).body;
    expect(checkout).toMatchObject({
      amount: 23800,
      currency: 'EUR',
      invoiceNumber: invoice.number,
      metadata: { invoiceId: invoice.id },
      items: [],
    });

    const transactionId = await payLink(link.body.sessionPublicId);
    // The transaction's tax is the invoice's, not a new calculation.
    const tax = (await adminCall('GET', `/transactions/${transactionId}/tax`)).body;
    expect(tax.tax).toMatchObject({ totalGross: 23800, totalTax: invoice.taxCalculation.totalTax });
    expect(tax.input).toBeNull();

    const paid = await eventually(async () => {
      const inv = await invoiceOf(invoice.id);
      return inv.status === 'paid' ? inv : null;
    }, 15_000);
    expect(paid).toMatchObject({ amountPaid: 23800, amountDue: 0, payments: [{ transactionId, amount: 23800 }] });
    const again = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/settled/);
  });

  it('a partial payment leaves the invoice partially_paid; a refund raises the outstanding amount with exactly one credit note', async () => {
    const invoice = await issuedInvoice();
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {
      amount: 5000,
      expireInHours: 2,
    });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect(link.body.amount).toBe(5000);
    expect(Date.parse(link.body.expiresAt) - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);

    const transactionId = await payLink(link.body.sessionPublicId);
    const partly = await eventually(async () => {
      const inv = await invoiceOf(invoice.id);
      return inv.status === 'partially_paid' ? inv : null;
    }, 15_000);
    expect(partly).toMatchObject({ amountPaid: 5000, amountDue: 18800 });
    // The default of a next link is what is outstanding.
    const rest = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(rest.body.amount).toBe(18800);

    const eventId = `refund-${randomBytes(6).toString('hex')}`;
    await publishRefund(invoice, transactionId, link.body, eventId);
    await publishRefund(invoice, transactionId, link.body, eventId);
    const refunded = await eventually(async () => {
      const inv = await invoiceOf(invoice.id);
      return inv.amountDue === 23800 ? inv : null;
    }, 15_000);
    expect(refunded.status).toBe('issued');
    const notes = await eventually(async () => {
      const list = await creditNotesOf(invoice.id);
      return list.length > 0 ? list : null;
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 5000 } });
    // A second delivery of the same refund event was consumed as well: still one credit note.
    await eventually(
      () =>
        mesh
          .logs('billing')
          .filter((l) => l.includes(eventId) && l.includes('transaction status of an invoice payment received'))
          .length >= 2,
    );
    expect(await creditNotesOf(invoice.id)).toHaveLength(1);
  });
});
