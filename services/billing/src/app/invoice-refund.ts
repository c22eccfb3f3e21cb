import { ConflictError, ErrorCode, newObjectId } from '@paymesh/core';
import { appendChainEntry, creditNoteEntry } from './document-chain';
import { eventId, type EventEnvelope } from '@paymesh/bus';
import { Subjects, type InvoicePayment, type TransactionStatusChangedBrief } from '@paymesh/contracts';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import {
  settlementOf,
  uncoveredByRefunds,
  withPayment,
  withReversal,
  type PaymentState,
} from '../domain/invoice-payments';
import { allocateInvoiceTax } from '../domain/tax-allocation';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import { creditNoteIssue, creditNoteOf } from './credit-note-issue';
import { drawDocumentNumber } from './document-number';
import type { InvoiceDeps } from './invoice-deps';
import { paymentStateOf } from './invoice-payment-state';

/**
 * A transaction that paid an invoice moved to refunded (3). Provider refunds are credited from
 * their own events (`checkout.transaction.refunded`, see invoice-provider-refund.ts), so this
 * reverses only what the refunds recorded on the transaction do not cover: nothing after provider
 * refunds, the rest of the payment after a status set without a refund record. In ONE store
 * transaction that part is reversed (outstanding rises), a credit note (`kind: refund`, numbered
 * from the credit-note layout and the site's prefix) is issued for it with the tax allocated from
 * the invoice snapshot, and `billing.credit_note.issued` is emitted with that tax. The source
 * event id is kept on the reversal and in the credit note's unique `sourceKey`, so one event,
 * however often or concurrently delivered, yields at most one credit note.
 */
export async function recordRefund(
  deps: InvoiceDeps,
  key: OrgKey,
  found: InvoiceDoc,
  d: TransactionStatusChangedBrief,
  event: EventEnvelope<TransactionStatusChangedBrief>,
  log: Record<string, unknown>,
): Promise<void> {
  const refunds = d.refunds ?? [];
  await recordReversal(
    deps,
    key,
    found,
    {
      transactionId: d.transactionId,
      kind: 'refund',
      sourceEventId: event.id,
      sourceKey: `refund:${event.id}`,
      reason: `Refund of payment ${d.transactionId}`,
      limit: (s) => uncoveredByRefunds(s, d.transactionId, refunds),
    },
    { ...log, refundsRecorded: refunds.length },
  );
}

/** What reverses an invoice payment: a refund or a lost chargeback, named by its source. */
export interface ReversalSource {
  transactionId: string;
  kind: 'refund' | 'chargeback';
  /** Kept on the reversal: one reversal per source. */
  sourceEventId: string;
  /** The credit note's unique source key: one credit note per source. */
  sourceKey: string;
  reason: string;
  /** The most to reverse, from the invoice's current payment state (default: all that is left). */
  limit?: (s: PaymentState) => number;
  /**
   * The transaction's payment, recorded first when the invoice has not recorded it yet (the
   * source proves the payment; its status event may still be on its way).
   */
  payment?: InvoicePayment;
}

/**
 * The payment a refund or chargeback event proves (its transaction's amount and payment time), to
 * record first when the invoice has not recorded it yet; nothing when the event does not say them.
 */
export function provenPayment(d: {
  transactionId: string;
  transactionAmount?: number | null;
  paidAt?: string | null;
}): Pick<ReversalSource, 'payment'> {
  return d.paidAt && d.transactionAmount && d.transactionAmount > 0
    ? { payment: { transactionId: d.transactionId, amount: d.transactionAmount, paidAt: d.paidAt } }
    : {};
}

/**
 * Reverses what is left of a transaction's payment of an invoice (at most `source.limit`) and issues
 * ONE credit note for it (see {@link recordRefund}), idempotent per `source`.
 */
export async function recordReversal(
  deps: InvoiceDeps,
  key: OrgKey,
  found: InvoiceDoc,
  source: ReversalSource,
  log: Record<string, unknown>,
): Promise<void> {
  const { at, day, layout } = await creditNoteIssue(deps, key, found.siteId);
  try {
    await deps.outbox.commit(async (tx) => {
      const coll = tx.collection<InvoiceDoc>(INVOICES);
      const cur = await coll.get(found.id);
      const snap = cur?.snapshot;
      if (!cur || !snap || !cur.number || cur.status === 'void') return;
      const creditNoteId = newObjectId();
      const state = paymentStateOf(cur);
      const paid = (source.payment && withPayment(state, source.payment)) || state;
      const limit = source.limit?.(paid) ?? Number.POSITIVE_INFINITY;
      const reversed = withReversal(
        paid,
        {
          transactionId: source.transactionId,
          kind: source.kind,
          at,
          sourceEventId: source.sourceEventId,
          creditNoteId,
        },
        limit,
      );
      if (!reversed) {
        deps.logger.info(
          log,
          'nothing of the invoice payment left to reverse (recorded already or covered by refund credit notes)',
        );
        return;
      }
      const credited = allocateInvoiceTax(snap.taxCalculation, reversed.reversal.amount);
      const number = await drawDocumentNumber(tx, key, 'credit_note', layout, day);
      const note = await tx.collection<CreditNoteDoc>(CREDIT_NOTES).insert(
        creditNoteOf(key, { ...cur, number: cur.number }, snap, {
          id: creditNoteId,
          number,
          kind: source.kind,
          sourceKey: source.sourceKey,
          reason: source.reason,
          issueDate: day,
          lines: credited.lines.map((l) => ({
            description: l.name,
            quantity: 1,
            unitPrice: l.gross,
            amountType: 'gross' as const,
            taxRate: l.taxRate,
            itemType: l.itemType,
          })),
          taxCalculation: credited,
          totals: { net: credited.totalNet, tax: credited.totalTax, gross: credited.totalGross },
          transactionId: source.transactionId,
          createdAt: at,
        }),
      );
      await appendChainEntry(tx, key, creditNoteEntry(note, at));
      const s = settlementOf(reversed.state);
      await coll.replace({
        ...cur,
        payments: [...reversed.state.payments],
        paymentReversals: [...reversed.state.paymentReversals],
        amountPaid: s.amountPaid,
        status: s.status,
        creditNoteIds: [...cur.creditNoteIds, creditNoteId],
        updatedAt: at,
      });
      tx.emit(
        Subjects.creditNoteIssued,
        {
          organizationId: key.organizationId,
          mode: key.mode,
          siteId: cur.siteId,
          currency: cur.currency,
          taxCalculation: credited,
          transactionId: source.transactionId,
          occurredAt: at,
          creditNoteId,
          invoiceId: cur.id,
          number,
          issueDate: day,
        },
        { id: eventId(Subjects.creditNoteIssued, creditNoteId), occurredAt: at },
      );
      deps.logger.info(
        { ...log, creditNoteId, creditNoteNumber: number, amount: reversed.reversal.amount, amountDue: s.amountDue },
        `invoice payment reversed (${source.kind}) with a credit note`,
      );
    });
  } catch (err) {
    // A concurrent delivery of the same source wrote its credit note first (unique per source). Any
    // other taken key fails the delivery, which the bus retries: the credit note is never dropped.
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) {
      const written = await deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).findOne({
        organizationId: key.organizationId,
        mode: key.mode,
        invoiceId: found.id,
        sourceKey: source.sourceKey,
      });
      if (written) {
        deps.logger.info({ ...log, creditNoteId: written.id }, 'credit note written by a concurrent delivery');
        return;
      }
    }
    throw err;
  }
}
