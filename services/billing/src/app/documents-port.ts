import type { DocumentView, EInvoiceReport, RenderEInvoiceBody } from '@paymesh/contracts';
import type { OrgKey } from './deps';

/** A PDF rendering asked of the documents service. */
export interface RenderPdfCall {
  /** Invoice or credit-note id: the PDF is stored per document and snapshot version. */
  documentId: string;
  /** Changes whenever what is printed changes (see `snapshotVersionOf` in document-view.ts). */
  snapshotVersion: string;
  /** Render and store again even when a stored PDF exists. */
  regenerate: boolean;
  /** Render only, store nothing (a preview of a document that does not exist). */
  ephemeral?: boolean;
  view: DocumentView;
}

/** The documents service as billing uses it. */
export interface DocumentsPort {
  renderPdf(key: OrgKey, call: RenderPdfCall): Promise<{ pdf: Buffer; rendered: boolean }>;
  /** Writes an e-invoice (XML, or the Factur-X hybrid PDF) and answers it with its validation report. */
  renderEInvoice(
    key: OrgKey,
    body: RenderEInvoiceBody,
  ): Promise<{ content: Buffer; contentType: string; report: EInvoiceReport }>;
}
