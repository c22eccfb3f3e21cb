import { ConflictError, ErrorCode, ValidationError } from '@paymesh/core';
import type { DocumentEmailRecord, DocumentEmailRequest } from '@paymesh/contracts';
import { composeDocumentEmail, type DocumentForEmail } from '../domain/document-email';
import { withSend } from '../domain/email-log';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { creditNoteView, invoiceView, loadCreditNote, loadInvoice } from './invoice-view';
import { storedDocumentPdf } from './document-pdf';

type Kind = 'invoice' | 'credit_note';
type EmailedDoc = InvoiceDoc | CreditNoteDoc;

function recipientOf(input: DocumentEmailRequest, buyerEmail: string | null): string {
  const to = input.to ?? buyerEmail;
  if (!to) {
    throw new ValidationError(
      'no recipient: give `to` or add an e-mail address to the client (and correct the invoice buyer)',
      {
        field: 'to',
        code: ErrorCode.EMAIL_RECIPIENT_MISSING,
      },
    );
  }
  return to;
}

/** The newest payment link of the invoice that has not expired, while something is outstanding. */
function openPaymentUrl(doc: InvoiceDoc, now: Date): string | null {
  if (doc.status !== 'issued' && doc.status !== 'partially_paid') return null;
  const open = (doc.paymentLinks ?? []).filter((l) => Date.parse(l.expiresAt) > now.getTime());
  return open.at(-1)?.paymentUrl ?? null;
}

/** The invoice as its e-mail presents it; drafts are refused (only an issued document has a number). */
function invoiceForEmail(
  deps: InvoiceDeps,
  key: OrgKey,
  doc: InvoiceDoc,
  message: string | null,
): { doc: DocumentForEmail; buyerEmail: string | null } {
  const view = invoiceView(deps.secrets, key, doc);
  const snap = view.snapshot;
  if (doc.status === 'draft' || !snap || !view.number) {
    throw new ConflictError(`invoice ${doc.id} is a draft: issue it before sending it by e-mail`, {
      code: ErrorCode.INVOICE_NOT_ISSUED,
    });
  }
  return {
    buyerEmail: snap.buyer.email,
    doc: {
      kind: 'invoice',
      number: view.number,
      issueDate: snap.issueDate,
      dueDate: snap.dueDate,
      currency: snap.currency,
      sellerName: snap.seller.companyName ?? 'your supplier',
      buyerName: snap.buyer.name,
      amountDue: view.amountDue,
      invoiceNumber: null,
      paymentUrl: openPaymentUrl(doc, deps.clock.now()),
      message,
    },
  };
}

function creditNoteForEmail(
  deps: InvoiceDeps,
  key: OrgKey,
  doc: CreditNoteDoc,
  message: string | null,
): { doc: DocumentForEmail; buyerEmail: string | null } {
  const view = creditNoteView(deps.secrets, key, doc);
  return {
    buyerEmail: view.buyer.email,
    doc: {
      kind: 'credit_note',
      number: view.number,
      issueDate: view.issueDate,
      dueDate: null,
      currency: view.currency,
      sellerName: view.seller.companyName ?? 'your supplier',
      buyerName: view.buyer.name,
      amountDue: view.totals.gross,
      invoiceNumber: view.invoiceNumber,
      paymentUrl: null,
      message,
    },
  };
}

/**
 * `POST /invoices/:id/send-email` and `POST /credit-notes/:id/send-email`: composes the document's
 * e-mail (its PDF attached, served from the documents service's storage when rendered before), queues it in notifications-ipn's outbox and records the send on
 * the document (state `queued`; the outcome arrives as an event, see events/email-settled.ts).
 * The outbox key is `<kind>-<id>-<n>` with n the sends recorded so far: a request repeated after
 * one that queued the e-mail but failed to record it queues nothing new (it records that e-mail);
 * a request after a recorded send is a new send.
 */
export async function sendDocumentEmail(
  deps: InvoiceDeps,
  key: OrgKey,
  kind: Kind,
  id: string,
  input: DocumentEmailRequest,
): Promise<DocumentEmailRecord> {
  const stored: EmailedDoc =
    kind === 'invoice' ? await loadInvoice(deps, key, id) : await loadCreditNote(deps, key, id);
  const message = input.message ?? null;
  const { doc, buyerEmail } =
    kind === 'invoice'
      ? invoiceForEmail(deps, key, stored as InvoiceDoc, message)
      : creditNoteForEmail(deps, key, stored as CreditNoteDoc, message);
  const to = recipientOf(input, buyerEmail);
  const cc = input.cc ?? [];
  const composed = composeDocumentEmail(doc);
  const file = await storedDocumentPdf(
    deps,
    key,
    kind === 'invoice' ? { kind, doc: stored as InvoiceDoc } : { kind, doc: stored as CreditNoteDoc },
  );
  const n = stored.emails?.length ?? 0;
  const { emailId } = await deps.emailOutbox.send(key, {
    idempotencyKey: `${kind === 'invoice' ? 'invoice' : 'credit-note'}-${id}-${n}`,
    source: { kind, id },
    to: [to],
    cc,
    subject: composed.subject,
    text: composed.text,
    attachments: [{ filename: file.filename, contentType: 'application/pdf', content: file.pdf }],
  });
  const send: DocumentEmailRecord = {
    emailId,
    at: deps.clock.now().toISOString(),
    to: [to],
    cc,
    subject: composed.subject,
    state: 'queued',
    detail: null,
    settledAt: null,
  };
  const coll = deps.store.collection<EmailedDoc>(kind === 'invoice' ? INVOICES : CREDIT_NOTES);
  const saved = await coll.update(id, (cur) => {
    const emails = withSend(cur.emails ?? [], send);
    if (!emails) return null;
    const { id: _id, version: _v, ...rest } = cur;
    return { ...rest, emails };
  });
  deps.logger.info({ kind, documentId: id, emailId, organizationId: key.organizationId }, 'document e-mail queued');
  return saved.emails?.find((e) => e.emailId === emailId) ?? send;
}
