import { fileAnswer, resource, type FileResponse } from '../route-table';
import { billingPdf } from './billing-rpc';
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

/**
 * PDFs of invoices (the pro forma for a draft) and credit notes, rendered by the documents service
 * and stored per version of what they print; served inline as `<number>.pdf`.
 */
export const documentPdfRoutes = [
  invoices({
    method: 'GET',
    path: '/invoices/:id/pdf',
    operationId: 'getInvoicePdf',
    action: 'execute',
    response: fileAnswer,
    file: PDF,
    errors: [503],
    summary:
      'Download the invoice as PDF (`<number>.pdf`; a draft gives its pro forma, a void invoice stays downloadable); rendered once per version, then served as stored',
    params: idParams,
    async handler({ deps, org, params }) {
      return billingPdf(deps, org, 'getInvoicePdf', params.id);
    },
  }),
  invoices({
    method: 'POST',
    path: '/invoices/:id/regenerate-pdf',
    operationId: 'regenerateInvoicePdf',
    action: 'execute',
    response: fileAnswer,
    status: 200,
    file: PDF,
    errors: [503],
    summary: 'Render the invoice PDF again (e.g. after a branding change), replace the stored one and answer it',
    params: idParams,
    async handler({ deps, org, params }) {
      return billingPdf(deps, org, 'regenerateInvoicePdf', params.id);
    },
  }),
  creditNotes({
    method: 'GET',
    path: '/credit-notes/:id/pdf',
    operationId: 'getCreditNotePdf',
    action: 'execute',
    response: fileAnswer,
    file: PDF,
    errors: [503],
    summary: 'Download the credit note as PDF (`<number>.pdf`); rendered once, then served as stored',
    params: idParams,
    async handler({ deps, org, params }) {
      return billingPdf(deps, org, 'getCreditNotePdf', params.id);
    },
  }),
];
