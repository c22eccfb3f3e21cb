import { fileAnswer, resource, type FileResponse } from '../route-table';
import { billingPdf, type BillingPdfMethod } from './billing-rpc';
import { idParams } from './common';

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });
const creditNotes = resource({ tag: 'Credit notes', scopePrefix: 'credit_note' });

const PDF: FileResponse = {
  contentType: 'application/pdf',
  headers: {
    'X-Document-Rendered':
      '`true` when this request rendered the PDF, `false` when it was served as stored for this version of the document',
  },
};

/** A PDF route of one document: billing's PDF RPC of the same name, answered as a file (a POST with 200). */
function pdfRow(
  documents: typeof invoices,
  method: 'GET' | 'POST',
  path: string,
  operationId: BillingPdfMethod,
  summary: string,
) {
  return documents({
    method,
    path,
    operationId,
    action: 'execute',
    response: fileAnswer,
    ...(method === 'POST' ? { status: 200 } : {}),
    file: PDF,
    errors: [503],
    summary,
    params: idParams,
    async handler({ deps, org, params }) {
      return billingPdf(deps, org, operationId, params.id);
    },
  });
}

/**
 * PDFs of invoices (the pro forma for a draft) and credit notes, rendered by the documents service
 * and stored per version of what they print; served inline as `<number>.pdf`.
 */
export const documentPdfRoutes = [
  pdfRow(
    invoices,
    'GET',
    '/invoices/:id/pdf',
    'getInvoicePdf',
    'Download the invoice as PDF (`<number>.pdf`; a draft gives its pro forma, a void invoice stays downloadable); rendered once per version, then served as stored',
  ),
  pdfRow(
    invoices,
    'POST',
    '/invoices/:id/regenerate-pdf',
    'regenerateInvoicePdf',
    'Render the invoice PDF again (e.g. after a branding change), replace the stored one and answer it',
  ),
  pdfRow(
    creditNotes,
    'GET',
    '/credit-notes/:id/pdf',
    'getCreditNotePdf',
    'Download the credit note as PDF (`<number>.pdf`); rendered once, then served as stored',
  ),
];
