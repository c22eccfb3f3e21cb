import { ErrorCode, ForbiddenError, isObjectId, NotFoundError, ofTenant } from '@paymesh/core';
import type {
  EInvoiceFormat,
  PortalDocumentItem,
  PortalDocumentPdfBody,
  PortalDocumentsQuery,
} from '@paymesh/contracts';
import { emailKeyOf, type ClientDoc } from '../domain/client';
import { proformaNumberOf, type CreditNoteDoc, type InvoiceDoc } from '../domain/invoice';
import { CLIENTS, CREDIT_NOTES, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import { creditNotePdf, invoicePdf, type DocumentPdf } from './document-pdf';
import { renderInvoiceEInvoice, type EInvoiceFile } from './einvoice-export';
import type { InvoiceDeps } from './invoice-deps';
import { getInvoicingSettings } from './invoicing-settings';
import { getPortalSettings } from './portal-settings';

/**
 * The buyer portal's view of billing. A document belongs to a buyer e-mail when the e-mail of its
 * buyer matches (trimmed, lower-cased): the issued snapshot's buyer for invoices and credit notes,
 * the client's current e-mail for drafts (which have no snapshot yet). Portal-visible: draft
 * invoices, issued invoices whatever their payment state (issued, partially_paid, paid; not void)
 * and credit notes (always issued). Anything else, and another buyer's document, is 404.
 */

const ISSUED_STATUSES = ['issued', 'partially_paid', 'paid'] as const;

/** One document of the portal list. */
export type PortalDocument = PortalDocumentItem;

interface Owned {
  clientIds: string[];
  /** Spellings of the buyer's e-mail as stored on snapshots (the normalized one and the clients'). */
  spellings: string[];
}

async function ownedBy(deps: InvoiceDeps, key: OrgKey, emailKey: string): Promise<Owned> {
  const clients = await deps.store
    .collection<ClientDoc>(CLIENTS)
    .find({ organizationId: key.organizationId, mode: key.mode, emailKey }, { limit: 100 });
  const spellings = new Set<string>([emailKey]);
  for (const c of clients.items) if (c.email) spellings.add(c.email);
  return { clientIds: clients.items.map((c) => c.id), spellings: [...spellings] };
}

const sameEmail = (stored: string | null | undefined, emailKey: string) => !!stored && emailKeyOf(stored) === emailKey;

async function portalDocs(
  deps: InvoiceDeps,
  key: OrgKey,
  emailKey: string,
): Promise<{ invoices: InvoiceDoc[]; creditNotes: CreditNoteDoc[] }> {
  const owned = await ownedBy(deps, key, emailKey);
  const tenant = { organizationId: key.organizationId, mode: key.mode };
  const invoices = deps.store.collection<InvoiceDoc>(INVOICES);
  const [drafts, issued, notes] = await Promise.all([
    owned.clientIds.length > 0
      ? invoices.find({ ...tenant, status: 'draft', clientId: { $in: owned.clientIds } })
      : Promise.resolve({ items: [] as InvoiceDoc[] }),
    invoices.find({
      ...tenant,
      status: { $in: [...ISSUED_STATUSES] },
      'snapshot.buyer.email': { $in: owned.spellings },
    }),
    deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).find({ ...tenant, 'buyer.email': { $in: owned.spellings } }),
  ]);
  return {
    invoices: [...drafts.items, ...issued.items.filter((d) => sameEmail(d.snapshot?.buyer.email, emailKey))],
    creditNotes: notes.items.filter((d) => sameEmail(d.buyer.email, emailKey)),
  };
}

/** E-invoice formats downloadable in the portal: allowed by the e-invoice settings and the portal settings. */
async function portalFormats(deps: InvoiceDeps, key: OrgKey): Promise<EInvoiceFormat[]> {
  const [invoicing, portal] = await Promise.all([getInvoicingSettings(deps, key), getPortalSettings(deps, key)]);
  const e = invoicing.settings.eInvoice;
  if (!e.enabled) return [];
  return e.allowedFormats.filter((f) => portal.eInvoiceFormats.includes(f));
}

/** `{count}` of the buyer's portal-visible documents (sign-in and magic-link conditions). */
export async function countPortalDocuments(deps: InvoiceDeps, key: OrgKey, e: string): Promise<{ count: number }> {
  const { invoices, creditNotes } = await portalDocs(deps, key, e);
  return { count: invoices.length + creditNotes.length };
}

/** The buyer's portal documents, newest first, paged. */
export async function listPortalDocuments(
  deps: InvoiceDeps,
  key: OrgKey,
  email: string,
  q: PortalDocumentsQuery,
): Promise<{ items: PortalDocument[]; total: number; page: number; limit: number }> {
  const [{ invoices, creditNotes }, formats] = await Promise.all([
    portalDocs(deps, key, email),
    portalFormats(deps, key),
  ]);
  const all: PortalDocument[] = [
    ...invoices.map((d): PortalDocument => ({
      id: d.id,
      type: 'invoice',
      number: d.number ?? proformaNumberOf(d.id),
      status: d.status,
      issueDate: d.issueDate,
      dueDate: d.dueDate,
      currency: d.currency,
      total: d.totals.gross,
      amountDue: Math.max(0, d.totals.gross - d.amountPaid),
      pdfAvailable: true,
      eInvoiceFormats: d.status === 'draft' ? [] : formats,
      createdAt: d.createdAt,
    })),
    ...creditNotes.map((d): PortalDocument => ({
      id: d.id,
      type: 'credit-note',
      number: d.number,
      status: 'issued',
      issueDate: d.issueDate,
      dueDate: null,
      currency: d.currency,
      total: d.totals.gross,
      amountDue: 0,
      pdfAvailable: true,
      eInvoiceFormats: [],
      createdAt: d.createdAt,
    })),
  ].sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)));
  const start = (q.page - 1) * q.limit;
  return { items: all.slice(start, start + q.limit), total: all.length, page: q.page, limit: q.limit };
}

function notFound(type: 'invoice' | 'credit-note'): NotFoundError {
  return new NotFoundError(`${type === 'invoice' ? 'invoice' : 'credit note'} not found`, { field: 'id' });
}

/** The invoice when it is portal-visible and the buyer's; 404 otherwise. */
async function buyersInvoice(deps: InvoiceDeps, key: OrgKey, id: string, emailKey: string): Promise<InvoiceDoc> {
  if (!isObjectId(id)) throw notFound('invoice');
  const doc = await deps.store.collection<InvoiceDoc>(INVOICES).get(id);
  if (!ofTenant(doc, key)) throw notFound('invoice');
  if (doc.status === 'draft') {
    const client = await deps.store.collection<ClientDoc>(CLIENTS).get(doc.clientId);
    if (
      client &&
      client.organizationId === key.organizationId &&
      client.mode === key.mode &&
      sameEmail(client.email, emailKey)
    )
      return doc;
  } else if (
    (ISSUED_STATUSES as readonly string[]).includes(doc.status) &&
    sameEmail(doc.snapshot?.buyer.email, emailKey)
  ) {
    return doc;
  }
  throw notFound('invoice');
}

async function buyersCreditNote(deps: InvoiceDeps, key: OrgKey, id: string, emailKey: string): Promise<CreditNoteDoc> {
  if (!isObjectId(id)) throw notFound('credit-note');
  const doc = await deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).get(id);
  if (!ofTenant(doc, key) || !sameEmail(doc.buyer.email, emailKey)) throw notFound('credit-note');
  return doc;
}

/** A buyer's document PDF: the invoice's (a draft's pro forma) or the credit note's. */
export async function portalDocumentPdf(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  email: string,
  type: PortalDocumentPdfBody['type'],
): Promise<DocumentPdf> {
  if (type === 'invoice') {
    await buyersInvoice(deps, key, id, email);
    return invoicePdf(deps, key, id, false);
  }
  await buyersCreditNote(deps, key, id, email);
  return creditNotePdf(deps, key, id, false);
}

/**
 * A buyer's issued invoice as e-invoice XML: the portal settings must allow the format (403
 * EINVOICE_FORMAT_NOT_ALLOWED), then the Admin API's path applies (e-invoice settings 403, draft 409
 * INVOICE_NOT_ISSUED, readiness 422 EINVOICE_READINESS_FAILED).
 */
export async function portalEInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  email: string,
  format: EInvoiceFormat,
): Promise<EInvoiceFile> {
  await buyersInvoice(deps, key, id, email);
  const portal = await getPortalSettings(deps, key);
  if (!portal.eInvoiceFormats.includes(format)) {
    throw new ForbiddenError(
      `e-invoice format ${format} is not offered for download in the portal (portal settings eInvoiceFormats)`,
      { code: ErrorCode.EINVOICE_FORMAT_NOT_ALLOWED },
    );
  }
  return renderInvoiceEInvoice(deps, key, id, { format, output: 'xml' });
}
