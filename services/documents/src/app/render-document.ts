import type { DocumentView } from '@paymesh/contracts';
import { renderHtml } from '../render/templates';
import type { PdfRenderer } from '../render/pdf-renderer';

/** Renders an invoice, credit note or pro forma view as PDF bytes. */
export async function renderDocumentPdf(renderer: PdfRenderer, view: DocumentView): Promise<Buffer> {
  return renderer.render(renderHtml(view));
}
