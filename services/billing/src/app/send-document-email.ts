import { ConflictError, ErrorCode, ValidationError } from '@paymesh/core';
import type {
  DocumentEmailRecord,
  DocumentEmailRequest,
  EInvoiceRequest,
  EmailEInvoiceFormat,
} from '@paymesh/contracts';
import { composeDocumentEmail, type DocumentForEmail } from '../domain/document-email';
import { withSend } from '../domain/email-log';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { creditNoteView, invoiceView, loadCreditNote, loadInvoice } from './invoice-view';
import { creditNotePrint, storedDocumentPdf } from './document-pdf';
import { printOf } from './document-view';
import { clientsOf } from './client-store';
import {
  enforceEInvoiceSettings,
  renderCreditNoteEInvoice,
  renderInvoiceEInvoice,
  type EInvoiceFile,
} from './einvoice-export';
import type { OutboxEmail } from './email-outbox-port';
import { getInvoicingSettings } from './invoicing-settings';
import { emailEInvoiceFormat } from '../domain/email-einvoice';
import { documentSettingsOf, type InvoicingSettings } from '../domain/invoicing-settings';
import { verifiedSenderEmail } from '../domain/sender';

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

interface EmailFacts {
  doc: DocumentForEmail;
  buyerEmail: string | null;
  /** The client named on the document (it may have been deleted since). */
  clientId: string | null;
  /** A business buyer: the document states its tax ID. */
  business: boolean;
  /** The seller's company name as the document states it. */
  companyName: string | null;
}

/** What an e-mail of a document says of its parties: the buyer it goes to and the seller who sends it. */
function partiesOf(
  buyer: { email: string | null; clientId: string | null; taxId: string | null; name: string },
  seller: { companyName: string | null },
  doc: Omit<DocumentForEmail, 'sellerName' | 'buyerName'>,
): EmailFacts {
  return {
    buyerEmail: buyer.email,
    clientId: buyer.clientId,
    business: !!buyer.taxId,
    companyName: seller.companyName,
    doc: { ...doc, sellerName: seller.companyName ?? 'your supplier', buyerName: buyer.name },
  };
}

/** The invoice as its e-mail presents it; drafts are refused (only an issued document has a number). */
function invoiceForEmail(deps: InvoiceDeps, key: OrgKey, doc: InvoiceDoc, message: string | null): EmailFacts {
  const view = invoiceView(deps.secrets, key, doc);
  const snap = view.snapshot;
  if (doc.status === 'draft' || !snap || !view.number) {
    throw new ConflictError(`invoice ${doc.id} is a draft: issue it before sending it by e-mail`, {
      code: ErrorCode.INVOICE_NOT_ISSUED,
    });
  }
  return partiesOf(snap.buyer, snap.seller, {
    kind: 'invoice',
    number: view.number,
    issueDate: snap.issueDate,
    dueDate: snap.dueDate,
    currency: snap.currency,
    amountDue: view.amountDue,
    invoiceNumber: null,
    paymentUrl: openPaymentUrl(doc, deps.clock.now()),
    message,
  });
}

function creditNoteForEmail(deps: InvoiceDeps, key: OrgKey, doc: CreditNoteDoc, message: string | null): EmailFacts {
  const view = creditNoteView(deps.secrets, key, doc);
  return partiesOf(view.buyer, view.seller, {
    kind: 'credit_note',
    number: view.number,
    issueDate: view.issueDate,
    dueDate: null,
    currency: view.currency,
    amountDue: view.totals.gross,
    invoiceNumber: view.invoiceNumber,
    paymentUrl: null,
    message,
  });
}

/**
 * The client's e-invoice choice as it is now (none when it was deleted). Read only while the
 * organization has e-invoices enabled: otherwise no e-invoice travels and the read is saved.
 */
async function clientChoice(deps: InvoiceDeps, key: OrgKey, settings: InvoicingSettings, clientId: string | null) {
  const client =
    settings.eInvoice.enabled && clientId
      ? await clientsOf(deps).findOne({ id: clientId, organizationId: key.organizationId, mode: key.mode })
      : null;
  return { eInvoiceFormat: client?.eInvoiceFormat ?? null };
}

/** The merchant's name as the From display name (one line); none without a company name. */
function fromNameOf(name: string | null): string | null {
  const line = (name ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
  return line === '' ? null : line;
}

type Attachment = OutboxEmail['attachments'][number];

/**
 * The files of the e-mail: the document's PDF (its stored rendition), and the e-invoice the buyer
 * gets ({@link emailEInvoiceFormat}): XRechnung as XML beside the PDF; ZUGFeRD as the PDF itself
 * (the same printed document with its XML embedded) instead of the plain one.
 */
async function attachmentsOf(
  deps: InvoiceDeps,
  key: OrgKey,
  stored: { kind: 'invoice'; doc: InvoiceDoc } | { kind: 'credit_note'; doc: CreditNoteDoc },
  settings: InvoicingSettings,
  einvoice: { format: EmailEInvoiceFormat; enforce: boolean } | null,
): Promise<Attachment[]> {
  if (einvoice?.enforce) enforceEInvoiceSettings(settings, einvoice.format);
  const render = (request: EInvoiceRequest) =>
    stored.kind === 'invoice'
      ? renderInvoiceEInvoice(deps, key, stored.doc.id, request)
      : renderCreditNoteEInvoice(deps, key, stored.doc.id, request);
  const file = (f: EInvoiceFile): Attachment => ({
    filename: f.fileName,
    contentType: f.contentType,
    content: f.content,
  });
  if (einvoice?.format === 'zugferd') return [file(await render({ format: 'zugferd', output: 'pdf' }))];
  const pdf = await storedDocumentPdf(deps, key, stored);
  const attachments: Attachment[] = [{ filename: pdf.filename, contentType: 'application/pdf', content: pdf.pdf }];
  if (einvoice?.format === 'xrechnung') attachments.push(file(await render({ format: 'xrechnung', output: 'xml' })));
  return attachments;
}

/**
 * `POST /invoices/:id/send-email` and `POST /credit-notes/:id/send-email`: composes the document's
 * e-mail in its language (text and HTML), sent in the merchant's name (From display name = company
 * name, Reply-To = the billing address of the invoicing settings), with the document's PDF and the
 * e-invoice the buyer gets attached; queues it in notifications-ipn's outbox and records the send on
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
  const facts =
    kind === 'invoice'
      ? invoiceForEmail(deps, key, stored as InvoiceDoc, message)
      : creditNoteForEmail(deps, key, stored as CreditNoteDoc, message);
  const to = recipientOf(input, facts.buyerEmail);
  const cc = input.cc ?? [];
  const typed =
    kind === 'invoice'
      ? ({ kind, doc: stored as InvoiceDoc } as const)
      : ({ kind, doc: stored as CreditNoteDoc } as const);
  const [settings, print] = await Promise.all([
    getInvoicingSettings(deps, key).then((s) => s.settings),
    typed.kind === 'invoice' ? (typed.doc.snapshot?.print ?? null) : creditNotePrint(deps, key, typed.doc),
  ]);
  const client = await clientChoice(deps, key, settings, facts.clientId);
  const language = (print ?? printOf(settings, null)).language;
  const einvoice = emailEInvoiceFormat(settings, { eInvoiceFormat: client.eInvoiceFormat, business: facts.business });
  const composed = composeDocumentEmail({ ...facts.doc, language, einvoice: einvoice?.format ?? null });
  const attachments = await attachmentsOf(deps, key, typed, settings, einvoice);
  const n = stored.emails?.length ?? 0;
  const { emailId } = await deps.emailOutbox.send(key, {
    idempotencyKey: `${kind === 'invoice' ? 'invoice' : 'credit-note'}-${id}-${n}`,
    source: { kind, id },
    to: [to],
    cc,
    subject: composed.subject,
    text: composed.text,
    html: composed.html,
    replyTo: documentSettingsOf(settings).replyToEmail ?? settings.companyEmail,
    fromName: fromNameOf(settings.companyName ?? facts.companyName),
    fromAddress: verifiedSenderEmail(documentSettingsOf(settings).sender),
    attachments,
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
    return { ...cur, emails };
  });
  deps.logger.info({ kind, documentId: id, emailId, organizationId: key.organizationId }, 'document e-mail queued');
  return saved.emails?.find((e) => e.emailId === emailId) ?? send;
}
