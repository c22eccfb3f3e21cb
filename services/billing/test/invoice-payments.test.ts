import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newObjectId, type Clock } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import { creditNoteIssued, Subjects } from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import type { InvoiceCheckoutRequest } from '../src/app/checkout-port';
import { INVOICES } from '../src/store/collections';
import type { InvoiceDoc } from '../src/domain/invoice';
import { createInvoice, listCreditNotes } from './wire';
import { issueInvoice } from '../src/app/issue-invoice';
import { invoiceView, loadInvoice } from '../src/app/invoice-view';
import { createPaymentLink } from '../src/app/create-payment-link';
import { applyTransactionToInvoice } from '../src/app/invoice-transaction-events';
import { applyRefundToInvoice } from '../src/app/invoice-provider-refund';
import {
  billingStore,
  consultingDraft,
  dropStore,
  invoiceDeps,
  linkCheckout,
  refundEvent as kitRefundEvent,
  statusEvent as kitStatusEvent,
  type LinkTransaction,
} from './kit';

// Clients are another use case's work: the buyer lookup reads the kit's table.
vi.mock('../src/app/client-port', () => import('./kit').then((k) => k.clientPort));

/**
 * Payment links and the transaction consumer on PostgreSQL: the checkout request billing sends, and
 * payments, refunds and credit notes recorded idempotently from status events. (The whole path
 * through checkout and the provider sandbox: test/mesh/invoice-payments.test.ts.)
 */
describe('invoice payments on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: InvoiceDeps;
  const clock: Clock = { now: () => new Date('2026-06-15T10:00:00Z') } as Clock;
  const sent: InvoiceCheckoutRequest[] = [];

  async function issued(): Promise<{ key: OrgKey; id: string; number: string }> {
    const key: OrgKey = { organizationId: newObjectId(), mode: 'live' };
    const draft = await createInvoice(deps, key, consultingDraft(2));
    const inv = await issueInvoice(deps, key, draft.id);
    return { key, id: inv.id, number: inv.number! };
  }

  const statusEvent = (key: OrgKey, inv: { id: string }, t: LinkTransaction, status: number) =>
    kitStatusEvent(clock.now().toISOString(), key, inv.id, t, status);

  /** `checkout.transaction.refunded` of a refund of `t` (event id from transaction and refund, as checkout makes it). */
  const refundEvent = (
    key: OrgKey,
    inv: { id: string },
    t: LinkTransaction,
    refundId: string,
    amount: number,
    refundedTotal: number,
  ) => kitRefundEvent(clock.now().toISOString(), key, inv.id, t, { refundId, amount, refundedTotal });

  const viewOf = async (inv: { key: OrgKey; id: string }) =>
    invoiceView(deps.secrets, inv.key, await loadInvoice(deps, inv.key, inv.id));
  const notesOf = async (inv: { key: OrgKey; id: string }) =>
    (await listCreditNotes(deps, inv.key, JSON.stringify({ invoiceId: inv.id }))).items;

  beforeAll(async () => {
    store = await billingStore('billing_pay_test');
    // Stands in for checkout's CreateCheckout (the mesh test pays real links): records the request.
    deps = invoiceDeps(store, clock, { checkout: { createCheckout: linkCheckout(sent) } });
  });
  afterAll(() => dropStore(store));

  it('sends checkout the invoice number, metadata and the tax allocated from the snapshot, without items; records the link', async () => {
    const inv = await issued();
    const link = await createPaymentLink(deps, inv.key, inv.id, { amount: 11900 }, 'user:1');
    const req = sent.at(-1)!;
    expect(req).toMatchObject({
      amount: 11900,
      currency: 'EUR',
      invoiceNumber: inv.number,
      metadata: { invoiceId: inv.id },
      email: 'erika@example.com',
    });
    expect(req.invoiceTax.allocation).toMatchObject({ totalGross: 11900, totalTax: 1900, totalNet: 10000 });
    expect(Date.parse(req.expiresAt) - clock.now().getTime()).toBe(336 * 3_600_000);
    const doc = await loadInvoice(deps, inv.key, inv.id);
    expect(doc.paymentLinks).toEqual([{ ...link, createdAt: clock.now().toISOString() }]);
  });

  it('records a payment once per transaction and a refund once per event, with one credit note', async () => {
    const inv = await issued();
    const link = await createPaymentLink(deps, inv.key, inv.id, { amount: 5000 }, null);
    const t = { transactionId: newObjectId(), checkoutId: link.checkoutId, amount: 5000 };
    const paidEvent = statusEvent(inv.key, inv, t, 1);
    await applyTransactionToInvoice(deps, paidEvent);
    await applyTransactionToInvoice(deps, paidEvent);
    await applyTransactionToInvoice(deps, statusEvent(inv.key, inv, t, 1));
    let view = invoiceView(deps.secrets, inv.key, await loadInvoice(deps, inv.key, inv.id));
    expect(view).toMatchObject({ status: 'partially_paid', amountPaid: 5000, amountDue: 18800 });
    expect(view.payments).toHaveLength(1);

    const refund = statusEvent(inv.key, inv, t, 3);
    await Promise.all([applyTransactionToInvoice(deps, refund), applyTransactionToInvoice(deps, refund)]);
    await applyTransactionToInvoice(deps, refund);
    view = invoiceView(deps.secrets, inv.key, await loadInvoice(deps, inv.key, inv.id));
    expect(view).toMatchObject({ status: 'issued', amountPaid: 0, amountDue: 23800 });
    expect(view.paymentReversals).toMatchObject([
      { transactionId: t.transactionId, amount: 5000, kind: 'refund', sourceEventId: refund.id },
    ]);
    const notes = await listCreditNotes(deps, inv.key, JSON.stringify({ invoiceId: inv.id }));
    expect(notes.items).toHaveLength(1);
    expect(notes.items[0]).toMatchObject({
      kind: 'refund',
      transactionId: t.transactionId,
      totals: { gross: 5000, tax: 798, net: 4202 },
    });
    expect(view.creditNoteIds).toEqual([notes.items[0]!.id]);
    const issuedEvents = (await store.outbox.pending(2000))
      .filter((e) => e.subject === Subjects.creditNoteIssued)
      .map((e) => creditNoteIssued.parse((e.payload as { data: unknown }).data))
      .filter((d) => d.invoiceId === inv.id);
    expect(issuedEvents).toHaveLength(1);
    expect(issuedEvents[0]).toMatchObject({
      creditNoteId: notes.items[0]!.id,
      transactionId: t.transactionId,
      taxCalculation: { totalGross: 5000, totalTax: 798 },
    });
  });

  it('ignores a checkout that is not one of the invoice links, and disputes until their outcome', async () => {
    const inv = await issued();
    const foreign = { transactionId: newObjectId(), checkoutId: newObjectId(), amount: 23800 };
    await applyTransactionToInvoice(deps, statusEvent(inv.key, inv, foreign, 1));
    const link = await createPaymentLink(deps, inv.key, inv.id, {}, null);
    await applyTransactionToInvoice(
      deps,
      statusEvent(inv.key, inv, { transactionId: newObjectId(), checkoutId: link.checkoutId, amount: 23800 }, 4),
    );
    const doc = await deps.store.collection<InvoiceDoc>(INVOICES).get(inv.id);
    expect(doc).toMatchObject({ status: 'issued', amountPaid: 0, payments: [] });
  });

  it('credits each provider refund once, however often or concurrently delivered; status 3 after them credits nothing more', async () => {
    const inv = await issued();
    const link = await createPaymentLink(deps, inv.key, inv.id, { amount: 10000 }, null);
    const t = { transactionId: newObjectId(), checkoutId: link.checkoutId, amount: 10000 };
    await applyTransactionToInvoice(deps, statusEvent(inv.key, inv, t, 1));

    const first = refundEvent(inv.key, inv, t, 'ch_1:3000', 3000, 3000);
    await Promise.all([applyRefundToInvoice(deps, first), applyRefundToInvoice(deps, first)]);
    await applyRefundToInvoice(deps, first);
    expect(await viewOf(inv)).toMatchObject({ status: 'partially_paid', amountPaid: 7000, amountDue: 16800 });
    expect(await notesOf(inv)).toMatchObject([{ kind: 'refund', totals: { gross: 3000 } }]);

    // The last refund, and the status 3 it causes (naming both refunds), in either order.
    const status3 = statusEvent(inv.key, inv, t, 3);
    status3.data.refunds = [
      { refundId: 'ch_1:3000', amount: 3000 },
      { refundId: 'ch_1:10000', amount: 7000 },
    ];
    await applyTransactionToInvoice(deps, status3);
    expect(await notesOf(inv)).toHaveLength(1);
    await applyRefundToInvoice(deps, refundEvent(inv.key, inv, t, 'ch_1:10000', 7000, 10000));
    await applyTransactionToInvoice(deps, status3);
    expect(await viewOf(inv)).toMatchObject({ status: 'issued', amountPaid: 0, amountDue: 23800 });
    const notes = await notesOf(inv);
    expect(notes.map((n) => n.totals.gross).sort((a, b) => a - b)).toEqual([3000, 7000]);
    // Together the notes credit exactly the tax allocated to the payment.
    expect(notes.reduce((n, x) => n + x.totals.tax, 0)).toBe(1597);
  });

  it('a status 3 set by hand after a partial refund credits the rest; a refund before its payment is recorded records it first', async () => {
    const inv = await issued();
    const link = await createPaymentLink(deps, inv.key, inv.id, { amount: 10000 }, null);
    const t = { transactionId: newObjectId(), checkoutId: link.checkoutId, amount: 10000 };
    // The refund event overtakes the status 1 event (separate consumers).
    await applyRefundToInvoice(deps, refundEvent(inv.key, inv, t, 're_1', 2500, 2500));
    expect(await viewOf(inv)).toMatchObject({
      status: 'partially_paid',
      amountPaid: 7500,
      payments: [{ transactionId: t.transactionId, amount: 10000 }],
    });
    await applyTransactionToInvoice(deps, statusEvent(inv.key, inv, t, 1));
    expect((await viewOf(inv)).payments).toHaveLength(1);

    const manual = statusEvent(inv.key, inv, t, 3);
    manual.data.refunds = [{ refundId: 're_1', amount: 2500 }];
    await applyTransactionToInvoice(deps, manual);
    await applyTransactionToInvoice(deps, manual);
    expect(await viewOf(inv)).toMatchObject({ status: 'issued', amountPaid: 0 });
    expect((await notesOf(inv)).map((n) => n.totals.gross).sort((a, b) => a - b)).toEqual([2500, 7500]);
  });
});
