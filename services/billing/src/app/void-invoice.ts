import { ConflictError, ErrorCode, NotFoundError } from '@paymesh/core';
import { appendChainEntry, creditNoteEntry } from './document-chain';
import { eventId } from '@paymesh/bus';
import { Subjects, type InvoiceRecord, type InvoiceVoid } from '@paymesh/contracts';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import { creditNoteIssue, creditNoteOf } from './credit-note-issue';
import { drawDocumentNumber } from './document-number';
import type { InvoiceDeps } from './invoice-deps';
import { invoiceView, loadInvoice } from './invoice-view';

function notVoidable(doc: InvoiceDoc): ConflictError {
  return new ConflictError(
    `invoice ${doc.id} is a draft: only issued invoices can be voided; delete the draft instead`,
    {
      code: ErrorCode.INVOICE_NOT_VOIDABLE,
    },
  );
}

/**
 * `POST /invoices/:id/void` (Admin role, checked by the gateway). In ONE store transaction: the
 * credit note that reverses the whole snapshot (own number from the credit-note layout and the
 * site's credit-note prefix, same counter rules), the invoice marked void, and the events
 * `billing.invoice.voided` and `billing.credit_note.issued`. Voiding a void invoice answers it as
 * it is (idempotent). The tax ledger reverses the sale on the void event; the credit note's event
 * carries `taxCalculation: null` so the same amounts are not taken off twice.
 */
export async function voidInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  input: InvoiceVoid,
  actor: string | null,
): Promise<InvoiceRecord> {
  const doc = await loadInvoice(deps, key, id);
  if (doc.status === 'void') return invoiceView(deps.secrets, key, doc);
  if (doc.status === 'draft') throw notVoidable(doc);
  const { at, day, layout } = await creditNoteIssue(deps, key, doc.siteId);
  const reason = input.reason ?? null;

  const voided = await deps.outbox.commit(async (tx) => {
    const coll = tx.collection<InvoiceDoc>(INVOICES);
    const cur = await coll.get(id);
    if (!cur) throw new NotFoundError('invoice not found', { field: 'id' });
    if (cur.status === 'void') return cur;
    if (cur.status === 'draft') throw notVoidable(cur);
    const snap = cur.snapshot;
    if (!snap || !cur.number) throw new ConflictError(`invoice ${id} has no issued snapshot`);
    const number = await drawDocumentNumber(tx, key, 'credit_note', layout, day);
    const note = await tx.collection<CreditNoteDoc>(CREDIT_NOTES).insert(
      creditNoteOf(key, { ...cur, number: cur.number }, snap, {
        number,
        kind: 'void',
        sourceKey: 'void',
        reason,
        issueDate: day,
        lines: snap.lines,
        taxCalculation: snap.taxCalculation,
        totals: snap.totals,
        transactionId: cur.transactionId,
        createdAt: at,
      }),
    );
    await appendChainEntry(tx, key, creditNoteEntry(note, at));
    const next = await coll.replace({
      ...cur,
      status: 'void',
      voidedAt: at,
      voidReason: reason,
      creditNoteIds: [...cur.creditNoteIds, note.id],
      corrections: cur.corrections,
      updatedAt: at,
    });
    const common = {
      organizationId: key.organizationId,
      mode: key.mode,
      siteId: cur.siteId,
      currency: cur.currency,
      transactionId: cur.transactionId,
      occurredAt: at,
    };
    tx.emit(
      Subjects.invoiceVoided,
      { ...common, taxCalculation: snap.taxCalculation, invoiceId: id, number: cur.number, issueDate: snap.issueDate },
      { id: eventId(Subjects.invoiceVoided, id), occurredAt: at },
    );
    tx.emit(
      Subjects.creditNoteIssued,
      { ...common, taxCalculation: null, creditNoteId: note.id, invoiceId: id, number, issueDate: day },
      { id: eventId(Subjects.creditNoteIssued, note.id), occurredAt: at },
    );
    deps.logger.info(
      { invoiceId: id, creditNoteId: note.id, creditNoteNumber: number, actor },
      'invoice voided with a credit note',
    );
    return next;
  });
  return invoiceView(deps.secrets, key, voided);
}
