import type { EmailSettled } from '@paymesh/contracts';
import type { Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import { withOutcome } from '../domain/email-log';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';

/**
 * Consumer of `notifications.email.delivered` / `failed`: settles the send recorded on the invoice
 * or credit note (state `sent` or `failed`, the SMTP answer or the error, when). Redeliveries change
 * nothing; an outcome that overtakes the recording of its send creates the entry (see email-log.ts).
 * An e-mail of a document not found in its organization and mode is logged and dropped.
 */
export async function settleDocumentEmail(store: DocumentStore, logger: Logger, e: EmailSettled): Promise<void> {
  type Doc = InvoiceDoc | CreditNoteDoc;
  // Sign-in codes of the buyer portal are no document of billing's.
  if (e.source.kind !== 'invoice' && e.source.kind !== 'credit_note') return;
  const coll = store.collection<Doc>(e.source.kind === 'invoice' ? INVOICES : CREDIT_NOTES);
  const doc = await coll.get(e.source.id);
  if (!doc || doc.organizationId !== e.organizationId || doc.mode !== e.mode) {
    logger.warn({ emailId: e.emailId, source: e.source }, 'e-mail outcome for an unknown document dropped');
    return;
  }
  const outcome = { emailId: e.emailId, to: e.to, state: e.state, detail: e.detail, at: e.at };
  await coll.update(
    doc.id,
    (cur) => {
      const emails = withOutcome(cur.emails ?? [], outcome);
      if (!emails) return null;
      return { ...cur, emails };
    },
    undefined,
    doc,
  );
  logger.info({ emailId: e.emailId, source: e.source, state: e.state }, 'document e-mail settled');
}
