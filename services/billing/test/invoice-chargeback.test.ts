import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError, newObjectId, type Clock } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import type { ChargebackResolved } from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import { CREDIT_NOTES } from '../src/store/collections';
import { createInvoice, listCreditNotes } from './wire';
import { issueInvoice } from '../src/app/issue-invoice';
import { invoiceView, loadInvoice } from '../src/app/invoice-view';
import { createPaymentLink } from '../src/app/create-payment-link';
import { applyTransactionToInvoice } from '../src/app/invoice-transaction-events';
import { applyChargebackToInvoice } from '../src/app/invoice-chargeback';
import {
  billingStore,
  consultingDraft,
  dropStore,
  invoiceDeps,
  linkCheckout,
  chargebackEvent as kitChargebackEvent,
  statusEvent as kitStatusEvent,
  type LinkTransaction,
} from './kit';

// Clients are another use case's work: the buyer lookup reads the kit's table.
vi.mock('../src/app/client-port', () => import('./kit').then((k) => k.clientPort));

type Tx = LinkTransaction;

/**
 * Billing's chargeback consumer on PostgreSQL: a lost or accepted chargeback of an invoice payment
 * gives ONE chargeback credit note, however often, concurrently or under which event id it is
 * delivered, and whatever other reversal of the same payment races it. (Over the mesh with a
 * provider sandbox: test/mesh/provider-d.test.ts, test/mesh/refunds-disputes.test.ts.)
 */
describe('chargeback credit notes on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: InvoiceDeps;
  const clock: Clock = { now: () => new Date('2026-06-15T10:00:00Z') } as Clock;

  async function paidInvoice(
    amount: number,
    opts: { recordPayment?: boolean; key?: OrgKey } = {},
  ): Promise<{ key: OrgKey; id: string; t: Tx }> {
    const key: OrgKey = opts.key ?? { organizationId: newObjectId(), mode: 'live' };
    const draft = await createInvoice(deps, key, consultingDraft());
    const inv = await issueInvoice(deps, key, draft.id);
    const link = await createPaymentLink(deps, key, inv.id, { amount }, null);
    const t = { transactionId: newObjectId(), checkoutId: link.checkoutId, amount };
    if (opts.recordPayment !== false) await applyTransactionToInvoice(deps, statusEvent(key, inv.id, t, 1));
    return { key, id: inv.id, t };
  }

  const statusEvent = (key: OrgKey, invoiceId: string, t: Tx, status: number, id?: string) =>
    kitStatusEvent(clock.now().toISOString(), key, invoiceId, t, status, id, { refunds: [] });

  const chargebackEvent = (
    key: OrgKey,
    invoiceId: string,
    t: Tx,
    chargebackId: string,
    outcome: ChargebackResolved['outcome'],
    id?: string,
  ) => kitChargebackEvent(clock.now().toISOString(), key, invoiceId, t, { chargebackId, outcome }, id);

  /** The bus's redelivery: a handler that failed (e.g. lost a compare-and-set) runs again until it succeeds. */
  async function delivered(handler: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await handler();
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt > 20) throw err;
      }
    }
  }

  const viewOf = async (inv: { key: OrgKey; id: string }) =>
    invoiceView(deps.secrets, inv.key, await loadInvoice(deps, inv.key, inv.id));
  const notesOf = async (inv: { key: OrgKey; id: string }) =>
    (await listCreditNotes(deps, inv.key, JSON.stringify({ invoiceId: inv.id, limit: 100 }))).items;

  beforeAll(async () => {
    store = await billingStore('billing_cb_test');
    deps = invoiceDeps(store, clock, { checkout: { createCheckout: linkCheckout() } });
  });
  afterAll(() => dropStore(store));

  it('one lost chargeback delivered concurrently, redelivered and under other event ids gives ONE credit note', async () => {
    const inv = await paidInvoice(11900);
    const same = chargebackEvent(inv.key, inv.id, inv.t, 'PP-D-1', 'lost');
    const deliveries = [
      same,
      same,
      chargebackEvent(inv.key, inv.id, inv.t, 'PP-D-1', 'lost'),
      chargebackEvent(inv.key, inv.id, inv.t, 'PP-D-1', 'lost'),
    ];
    await Promise.all(deliveries.map((e) => delivered(() => applyChargebackToInvoice(deps, e))));
    await delivered(() => applyChargebackToInvoice(deps, same));
    // The same chargeback announced again as accepted (an operator's later decision) credits nothing more.
    await delivered(() =>
      applyChargebackToInvoice(deps, chargebackEvent(inv.key, inv.id, inv.t, 'PP-D-1', 'accepted')),
    );
    const notes = await notesOf(inv);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      kind: 'chargeback',
      transactionId: inv.t.transactionId,
      totals: { gross: 11900 },
    });
    const view = await viewOf(inv);
    expect(view).toMatchObject({ status: 'issued', amountPaid: 0, amountDue: 11900 });
    expect(view.paymentReversals).toHaveLength(1);
    expect(view.creditNoteIds).toEqual([notes[0]!.id]);
  });

  it('a lost chargeback racing a status 3 of the same payment reverses it once, with one credit note', async () => {
    for (const order of ['together', 'status-first', 'chargeback-first'] as const) {
      const inv = await paidInvoice(11900);
      const cb = chargebackEvent(inv.key, inv.id, inv.t, `CB-${order}`, 'lost');
      const refunded = statusEvent(inv.key, inv.id, inv.t, 3);
      const runCb = () => delivered(() => applyChargebackToInvoice(deps, cb));
      const runStatus = () => delivered(() => applyTransactionToInvoice(deps, refunded));
      if (order === 'together') await Promise.all([runCb(), runStatus(), runCb(), runStatus()]);
      else if (order === 'status-first') await runStatus().then(runCb);
      else await runCb().then(runStatus);
      const notes = await notesOf(inv);
      expect(notes, order).toHaveLength(1);
      expect(notes[0]!.totals.gross, order).toBe(11900);
      // The chargeback credits the payment unless the status 3 reversed it first.
      if (order !== 'together') expect(notes[0]!.kind, order).toBe(order === 'status-first' ? 'refund' : 'chargeback');
      const view = await viewOf(inv);
      expect(view, order).toMatchObject({ amountPaid: 0, amountDue: 11900 });
      expect(view.paymentReversals, order).toHaveLength(1);
    }
  });

  it('a chargeback that overtakes the payment status event records the payment first and credits it once', async () => {
    const inv = await paidInvoice(11900, { recordPayment: false });
    const cb = chargebackEvent(inv.key, inv.id, inv.t, 'PP-D-early', 'lost');
    await Promise.all([
      delivered(() => applyChargebackToInvoice(deps, cb)),
      delivered(() => applyChargebackToInvoice(deps, cb)),
    ]);
    await applyTransactionToInvoice(deps, statusEvent(inv.key, inv.id, inv.t, 1));
    const notes = await notesOf(inv);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', totals: { gross: 11900 } });
    const view = await viewOf(inv);
    expect(view.payments).toHaveLength(1);
    expect(view.paymentReversals).toMatchObject([{ kind: 'chargeback', amount: 11900 }]);
    expect(view).toMatchObject({ status: 'issued', amountPaid: 0, amountDue: 11900 });
  });

  it('a credit note that cannot be written fails the delivery (retried by the bus) instead of being dropped', async () => {
    const first = await paidInvoice(11900);
    await applyChargebackToInvoice(deps, chargebackEvent(first.key, first.id, first.t, 'CB-a', 'lost'));
    const [n1] = await notesOf(first);
    // Another document already holds the number the next credit note draws (a unique key that is not the source's).
    const next = n1!.number.replace(/(\d+)$/, (d) => String(Number(d) + 1).padStart(d.length, '0'));
    const inv = await paidInvoice(11900, { key: first.key });
    const blocker = await store
      .collection<{
        id: string;
        version: number;
        organizationId: string;
        mode: string;
        number: string;
        invoiceId: string;
        sourceKey: string;
      }>(CREDIT_NOTES)
      .insert({
        id: newObjectId(),
        organizationId: first.key.organizationId,
        mode: first.key.mode,
        number: next,
        invoiceId: newObjectId(),
        sourceKey: 'elsewhere',
      });
    const cb = chargebackEvent(inv.key, inv.id, inv.t, 'CB-b', 'lost');
    await expect(applyChargebackToInvoice(deps, cb)).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    expect(await viewOf(inv)).toMatchObject({ status: 'paid', amountDue: 0, paymentReversals: [] });
    await store.collection(CREDIT_NOTES).delete(blocker.id);
    await applyChargebackToInvoice(deps, cb);
    const notes = await notesOf(inv);
    expect(notes).toMatchObject([{ kind: 'chargeback', number: next, totals: { gross: 11900 } }]);
    expect(await viewOf(inv)).toMatchObject({ status: 'issued', amountDue: 11900 });
  });

  it('won changes nothing', async () => {
    const inv = await paidInvoice(11900);
    await applyChargebackToInvoice(deps, chargebackEvent(inv.key, inv.id, inv.t, 'CB-won', 'won'));
    expect(await notesOf(inv)).toHaveLength(0);
    expect(await viewOf(inv)).toMatchObject({ status: 'paid', amountDue: 0 });
  });
});
