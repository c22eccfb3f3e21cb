import { ofTenant } from '@paymesh/core';
import { pdfFileNameOf, type CreditNoteDoc, type DocumentPrint, type InvoiceDoc } from '../domain/invoice';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import { appendChainEntry } from './document-chain';
import { buyerOf } from './draft-invoice';
import { creditNoteDocumentView, issuedInvoiceView, printOf, proformaView, type VersionedView } from './document-view';
import type { InvoiceDeps } from './invoice-deps';
import { loadCreditNote, loadInvoice } from './invoice-view';
import { getInvoicingSettings } from './invoicing-settings';

/** A document's PDF as billing answers it. */
export interface DocumentPdf {
  pdf: Buffer;
  /** `<number>.pdf` (the pro forma label for drafts). */
  filename: string;
  /** Whether this request rendered it (false: served from the documents service's storage). */
  rendered: boolean;
}

async function render(
  deps: InvoiceDeps,
  key: OrgKey,
  documentId: string,
  v: VersionedView,
  regenerate: boolean,
): Promise<DocumentPdf> {
  const { pdf, rendered } = await deps.documents.renderPdf(key, {
    documentId,
    snapshotVersion: v.snapshotVersion,
    regenerate,
    view: v.view,
  });
  if (rendered) {
    deps.logger.info(
      { documentId, kind: v.view.kind, snapshotVersion: v.snapshotVersion, bytes: pdf.length, regenerate },
      'document pdf rendered',
    );
    // The PDF stored for an issued document joins its chain (tamper evidence of the archived file).
    const series = v.view.kind === 'invoice' || v.view.kind === 'credit_note' ? v.view.kind : null;
    if (series)
      await deps.store.transaction((tx) =>
        appendChainEntry(tx, key, {
          series,
          type: 'pdf',
          documentId,
          number: v.view.number,
          content: { bytes: pdf, format: `pdf@${v.snapshotVersion}` },
          at: deps.clock.now().toISOString(),
        }),
      );
  }
  return { pdf, filename: pdfFileNameOf(v.view.number), rendered };
}

/** The view of an invoice: its snapshot once issued (void ones too), the pro forma while a draft. */
export async function invoiceDocumentView(deps: InvoiceDeps, key: OrgKey, doc: InvoiceDoc): Promise<VersionedView> {
  if (doc.status !== 'draft') {
    // Payment instructions completed after the issue are printed too (as the e-invoices state them);
    // an invoice issued before languages existed prints as the settings say now.
    const needsSettings = !doc.snapshot?.seller.bankIBANSealed || !doc.snapshot.print;
    const [site, settings] = await Promise.all([
      deps.checkout.siteBranding(key, doc.siteId),
      needsSettings ? getInvoicingSettings(deps, key).then((s) => s.settings) : null,
    ]);
    const current = settings?.bankIBAN?.sealed ?? null;
    const print = doc.snapshot?.print ?? (settings ? printOf(settings, null) : null);
    return issuedInvoiceView(deps.secrets, key, doc, site, current, print);
  }
  const [settings, sellerTax, buyer, site] = await Promise.all([
    getInvoicingSettings(deps, key),
    deps.tax.settings(key),
    buyerOf(deps, key, doc.clientId),
    deps.checkout.siteBranding(key, doc.siteId),
  ]);
  return proformaView(deps.secrets, key, doc, {
    settings: settings.settings,
    sellerVatId: sellerTax.vatId,
    buyer,
    now: deps.clock.now(),
    site,
  });
}

export async function creditNoteDocumentViewOf(
  deps: InvoiceDeps,
  key: OrgKey,
  doc: CreditNoteDoc,
): Promise<VersionedView> {
  const [site, print] = await Promise.all([
    deps.checkout.siteBranding(key, doc.siteId),
    creditNotePrint(deps, key, doc),
  ]);
  return creditNoteDocumentView(deps.secrets, key, doc, site, print);
}

/** A credit note is printed like the invoice it corrects (its frozen language), else as the settings say now. */
export async function creditNotePrint(deps: InvoiceDeps, key: OrgKey, doc: CreditNoteDoc): Promise<DocumentPrint> {
  const invoice = await deps.store.collection<InvoiceDoc>(INVOICES).get(doc.invoiceId);
  const frozen = ofTenant(invoice, key) ? invoice.snapshot?.print : undefined;
  return frozen ?? printOf((await getInvoicingSettings(deps, key)).settings, null);
}

/**
 * The PDF of a document already loaded (the pro forma for a draft invoice), served from the
 * documents service's storage when it holds the document's snapshot version, unless `regenerate`.
 */
export async function storedDocumentPdf(
  deps: InvoiceDeps,
  key: OrgKey,
  doc: { kind: 'invoice'; doc: InvoiceDoc } | { kind: 'credit_note'; doc: CreditNoteDoc },
  regenerate = false,
): Promise<DocumentPdf> {
  const view =
    doc.kind === 'invoice'
      ? await invoiceDocumentView(deps, key, doc.doc)
      : await creditNoteDocumentViewOf(deps, key, doc.doc);
  return render(deps, key, doc.doc.id, view, regenerate);
}

/** `GET /invoices/:id/pdf` and `POST /invoices/:id/regenerate-pdf`: the invoice's PDF (a draft's pro forma). */
export const invoicePdf = async (deps: InvoiceDeps, key: OrgKey, id: string, regenerate: boolean) =>
  storedDocumentPdf(deps, key, { kind: 'invoice', doc: await loadInvoice(deps, key, id) }, regenerate);

/** `GET /credit-notes/:id/pdf`. */
export const creditNotePdf = async (deps: InvoiceDeps, key: OrgKey, id: string, regenerate: boolean) =>
  storedDocumentPdf(deps, key, { kind: 'credit_note', doc: await loadCreditNote(deps, key, id) }, regenerate);
