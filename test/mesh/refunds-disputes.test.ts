import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
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
 * provider_a refunds and disputes end to end: the buyer pays through the provider_a sandbox, the
 * sandbox refunds or disputes the payment and sends its signed webhooks (again on request), and
 * the transaction, the merchant's IPN, the linked invoice and its credit notes and the tax ledger
 * follow.
 */
describe('provider_a refunds and disputes', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

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

  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const waitStatus = (transactionId: string, status: number) =>
    eventually(async () => (await statusOf(transactionId)) === status, 20_000);
  const ipnStatuses = (path: string) => receiver.at(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);

  /** Resends a provider event `times` more times and waits until the sandbox delivered each. */
  async function resend(eventId: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++)
      expect((await sandboxCall('POST', `/_sandbox/events/${eventId}/resend`)).status).toBe(200);
    await eventually(async () => {
      const d = (await sandboxCall('GET', `/_sandbox/deliveries?event=${eventId}`)).body;
      const items: any[] = Array.isArray(d) ? d : (d.data ?? d.items ?? []);
      return items.filter((x) => x.ok).length >= times + 1;
    }, 20_000);
  }

  /** The newest event of a type about a payment intent (charge or dispute object). */
  async function eventOf(type: string, paymentIntent: string): Promise<string> {
    return eventually(async () => {
      const list = (await sandboxCall('GET', `/v1/events?type=${type}&limit=100`)).body.data as any[];
      return list.find((e) => e.data.object.payment_intent === paymentIntent)?.id as string | undefined;
    }, 10_000);
  }

  /** Buyer pays `sessionPublicId` through the sandbox; answers the transaction id and its payment intent. */
  async function pay(sessionPublicId: string): Promise<{ transactionId: string; pi: string; charge: string }> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const pi = (await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId as string;
    const paid = await sandboxCall('POST', `/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' });
    expect(paid.status).toBe(200);
    await waitStatus(transactionId, 1);
    return { transactionId, pi, charge: paid.body.latest_charge as string };
  }

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

  /** An issued invoice of 119.00 EUR gross and a payment link for all of it, paid by the buyer. */
  async function paidInvoice(
    items: unknown[] = [
      { description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' },
    ],
  ): Promise<{ invoice: any; transactionId: string; pi: string; charge: string }> {
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
      items,
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    // A new draft for this client each time: every case counts the credit notes of its own invoice.
    expect(draft.body).toMatchObject({ status: 'draft', clientId: client.body.id, creditNoteIds: [] });
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const paid = await pay(link.body.sessionPublicId);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoice.id}`)).body.status === 'paid', 20_000);
    return { invoice, ...paid };
  }

  const creditNotesOf = async (invoiceId: string) =>
    (await adminCall('GET', `/credit-notes?invoiceId=${invoiceId}&limit=100`)).body.items as any[];
  const invoiceOf = async (id: string) => (await adminCall('GET', `/invoices/${id}`)).body;

  /** Publishes the newest stored `checkout.transaction.refunded` event again (a redelivery after a lost ack). */
  async function redeliverLastRefundEvent(transactionId: string): Promise<string> {
    const jsm = await nc.jetstreamManager();
    const subject = `${mesh.namespace}.checkout.transaction.refunded`;
    const stored = await jsm.streams.getMessage(`${mesh.namespace.toUpperCase()}_CHECKOUT`, { last_by_subj: subject });
    const envelope = JSON.parse(new TextDecoder().decode(stored.data));
    expect(envelope.data.transactionId).toBe(transactionId);
    await nc
      .jetstream()
      .publish(subject, stored.data, { msgID: `${envelope.id}-again-${randomBytes(4).toString('hex')}` });
    return envelope.id as string;
  }

  /** Waits until billing handled the transaction's status 3 (the refunds' credit notes cover it). */
  /** Waits until the refunds recorded on the transaction cover its amount (the status stays 1). */
  async function refundedInFull(transactionId: string): Promise<any> {
    const record = await eventually(async () => {
      const r = (await adminCall('GET', `/transactions/${transactionId}`)).body;
      const refunded = (r.refunds ?? []).reduce((n: number, x: any) => n + x.amount, 0);
      return refunded >= r.amount ? r : undefined;
    }, 20_000);
    expect(record.status).toBe(1);
    return record;
  }

  /** "Mark refunded": the operator moves a fully refunded transaction to 3. */
  async function markRefunded(transactionId: string): Promise<void> {
    const res = await adminCall('PUT', `/transactions/${transactionId}`, {
      status: 3,
      reason: 'refunded in full at the provider',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe(3);
  }

  const statusThreeCovered = (transactionId: string) =>
    eventually(
      () => mesh.logs('billing').some((l) => l.includes(transactionId) && l.includes('covered by refund credit notes')),
      20_000,
    );

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    ipnBase = await receiver.start();
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
    // A German seller: invoices carry VAT, so credit notes show how it is allocated.
    expect((await adminCall('PUT', '/organizations/settings/tax', { homeCountry: 'DE' })).status).toBe(200);
  });

  afterAll(async () => {
    await nc?.close();
    await receiver.stop();
    await mesh?.dispose();
  });

  it('refunds change no status; once they cover the amount the operator marks the transaction refunded (IPN 3) without a further ledger reversal', async () => {
    const { transactionId, pi } = await pay(await checkout(12100, '/ipn/refund'));
    await eventually(() => ipnStatuses('/ipn/refund').includes(1), 20_000);
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi, amount: '2100' })).status).toBe(200);
    const partial = await eventOf('charge.refunded', pi);
    await eventually(
      () => mesh.logs('checkout').some((l) => l.includes(partial) && l.includes('refund or dispute recorded')),
      20_000,
    );
    expect(await statusOf(transactionId)).toBe(1);
    // Refunds do not cover the amount yet: marking it refunded is refused.
    const early = await adminCall('PUT', `/transactions/${transactionId}`, { status: 3, reason: 'refunded' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      code: 'ILLEGAL_TRANSITION',
      error: expect.stringMatching(/recorded provider refunds do not cover the amount/),
    });

    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi })).status).toBe(200);
    const record = await refundedInFull(transactionId);
    expect(record.refunds.map((r: any) => r.amount)).toEqual([2100, 10000]);
    expect(record.statusHistory.at(-1)).toMatchObject({ to: 1 });
    expect(ipnStatuses('/ipn/refund')).toEqual([1]);

    // One tax reversal per refund, together the whole sale.
    const reversed = await eventually(async () => {
      const r = (await adminCall('GET', `/transactions/${transactionId}/tax-records`)).body;
      return r.total >= 3 ? r.items : undefined;
    }, 20_000);
    const sale = reversed.find((e: any) => e.entryType === 'sale');
    const reversals = reversed.filter((e: any) => e.correctsRecordId === sale.id);
    expect(reversals.map((e: any) => e.totals.gross).sort((a: number, b: number) => a - b)).toEqual([-10000, -2100]);
    expect(reversals.reduce((n: number, e: any) => n + e.totals.tax, 0)).toBe(-sale.totals.tax);

    await markRefunded(transactionId);
    await eventually(() => ipnStatuses('/ipn/refund').includes(3), 20_000);
    expect(ipnStatuses('/ipn/refund')).toEqual([1, 3]);
    const after = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(after.statusHistory.at(-1)).toMatchObject({
      from: 1,
      to: 3,
      trigger: 'manual_update',
      reason: 'refunded in full at the provider',
    });
    // The ledger took the move to 3 in and recorded nothing more.
    await eventually(
      () => mesh.logs('tax').some((l) => l.includes(`transaction:${transactionId}`) && l.includes('records no entry')),
      20_000,
    );
    expect((await adminCall('GET', `/transactions/${transactionId}/tax-records`)).body.total).toBe(3);
    // Marking it again is an idempotent repeat.
    await markRefunded(transactionId);
  });

  it('a full refund of an invoice payment raises the outstanding amount with ONE credit note, however often the webhook comes', async () => {
    const { invoice, transactionId, pi } = await paidInvoice();
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi })).status).toBe(200);
    await refundedInFull(transactionId);
    const refunded = await eventOf('charge.refunded', pi);
    await resend(refunded, 3);
    const inv = await eventually(async () => {
      const i = (await adminCall('GET', `/invoices/${invoice.id}`)).body;
      return i.amountDue === 11900 ? i : undefined;
    }, 20_000);
    expect(inv.status).toBe('issued');
    await eventually(async () => (await creditNotesOf(invoice.id)).length > 0, 20_000);
    // Every resend reached payments-webhooks and was answered as a duplicate.
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(refunded) && l.includes('duplicate provider event delivery')).length >= 3,
      20_000,
    );
    expect(await statusOf(transactionId)).toBe(1);
    // Marked refunded: billing finds the refund's credit note covers it and writes none.
    await markRefunded(transactionId);
    await statusThreeCovered(transactionId);
    const notes = await creditNotesOf(invoice.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 11900 } });
  });

  it('partial refunds of an invoice payment write one credit note each with the tax allocated per rate; marked refunded afterwards, no further note', async () => {
    // 119.00 at 19 % and 53.50 at 7 % (manual rates): 172.50 gross, tax 19.00 + 3.50.
    const { invoice, transactionId, pi } = await paidInvoice([
      {
        description: 'Consulting',
        quantity: 1,
        unitPrice: 11900,
        amountType: 'gross',
        taxRate: 19,
        itemType: 'service',
      },
      { description: 'Handbook', quantity: 1, unitPrice: 5350, amountType: 'gross', taxRate: 7, itemType: 'service' },
    ]);
    expect(invoice.taxCalculation, JSON.stringify(invoice.taxCalculation)).toMatchObject({
      totalGross: 17250,
      totalTax: 2250,
    });
    const byRate = (note: any) =>
      Object.fromEntries(note.taxCalculation.taxBreakdown.map((b: any) => [b.taxRate, [b.taxableBase, b.taxAmount]]));

    // A fifth refunded: 23.80 at 19 % (tax 3.80) and 10.70 at 7 % (tax 0.70).
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi, amount: '3450' })).status).toBe(200);
    const first = await eventually(async () => {
      const list = await creditNotesOf(invoice.id);
      return list.length > 0 ? list[0] : undefined;
    }, 20_000);
    expect(first).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 3450, tax: 450, net: 3000 } });
    expect(byRate(first)).toEqual({ 19: [2000, 380], 7: [1000, 70] });
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: 'partially_paid', amountPaid: 13800, amountDue: 3450 });
    expect(await statusOf(transactionId)).toBe(1);

    // The same refund event delivered again: handled, and still one credit note.
    const eventId = await redeliverLastRefundEvent(transactionId);
    await eventually(
      () =>
        mesh.logs('billing').filter((l) => l.includes(eventId) && l.includes('refund of an invoice payment received'))
          .length >= 2,
      20_000,
    );
    expect(await creditNotesOf(invoice.id)).toHaveLength(1);
    expect(await invoiceOf(invoice.id)).toMatchObject({ amountDue: 3450 });

    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi })).status).toBe(200);
    await refundedInFull(transactionId);
    await markRefunded(transactionId);
    const refunded = await eventually(async () => {
      const i = await invoiceOf(invoice.id);
      return i.amountDue === 17250 ? i : undefined;
    }, 20_000);
    expect(refunded).toMatchObject({ status: 'issued', amountPaid: 0 });
    await statusThreeCovered(transactionId);
    const notes = await creditNotesOf(invoice.id);
    expect(notes).toHaveLength(2);
    const second = notes.find((n) => n.id !== first.id);
    expect(second).toMatchObject({ kind: 'refund', transactionId, totals: { gross: 13800, tax: 1800 } });
    // Together the notes credit each rate of the invoice exactly.
    expect(byRate(second)).toEqual({ 19: [8000, 1520], 7: [4000, 280] });
  });

  it('an opened dispute makes the transaction disputed (IPN 4); won restores completed (IPN 1) without a credit note', async () => {
    const { transactionId, charge } = await pay(await checkout(5000, '/ipn/won'));
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${charge}/dispute`, { reason: 'fraudulent' });
    expect(dispute.status).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/disputes/${dispute.body.id}/close`, { outcome: 'won' })).status).toBe(
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

  it('a lost dispute of an invoice payment keeps the transaction disputed and writes ONE chargeback credit note', async () => {
    const { invoice, transactionId, charge, pi } = await paidInvoice();
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${charge}/dispute`, {
      reason: 'product_not_received',
    });
    expect(dispute.status).toBe(200);
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/disputes/${dispute.body.id}/close`, { outcome: 'lost' })).status).toBe(
      200,
    );
    const closed = await eventOf('charge.dispute.closed', pi);
    await resend(closed, 2);
    const inv = await eventually(async () => {
      const i = (await adminCall('GET', `/invoices/${invoice.id}`)).body;
      return i.amountDue === 11900 ? i : undefined;
    }, 20_000);
    expect(inv.status).toBe('issued');
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(closed) && l.includes('duplicate provider event delivery')).length >= 2,
      20_000,
    );
    const notes = await creditNotesOf(invoice.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', transactionId, totals: { gross: 11900 } });
    expect(await statusOf(transactionId)).toBe(4);
  });
});
