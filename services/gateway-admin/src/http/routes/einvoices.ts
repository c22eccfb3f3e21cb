import { toWire } from '@paymesh/core';
import { z } from 'zod';
import { billingFileRpc, EINVOICE_FORMATS, einvoiceReportList, type EInvoiceFormat } from '@paymesh/contracts';
import { callEnvelope } from '@paymesh/grpc';
import type { AdminDeps } from '../../app/deps';
import { fileAnswer, resource, type FileAnswer, type FileResponse, type OrgScope } from '../route-table';
import { idParams } from './common';
import { billingJson } from './billing-rpc';

/** The e-invoice XML (UTF-8), validated before it is answered. */
const XML: FileResponse = { contentType: 'application/xml' };
/** PDF/A-3 with the Factur-X / ZUGFeRD CII XML attached as factur-x.xml. */
const PDF: FileResponse = { contentType: 'application/pdf' };

/**
 * Budget of a hybrid PDF: billing waits up to DOCUMENTS_DEADLINE_MS (20 s by default) for a
 * Chromium render, so the gateway waits a little longer than that rather than GRPC_DEADLINE_MS.
 */
const PDF_DEADLINE_MS = 25_000;

/** Calls billing's e-invoice RPC and answers its file. */
async function einvoiceFile(
  deps: AdminDeps,
  org: OrgScope,
  method: 'renderInvoiceEInvoice' | 'renderCreditNoteEInvoice',
  id: string,
  body: { format: EInvoiceFormat; output: 'xml' | 'pdf' },
): Promise<FileAnswer> {
  const client = deps.clients.billing;
  const deadlineMs =
    body.output === 'pdf' ? Math.max(deps.clients.deadlineMs, PDF_DEADLINE_MS) : deps.clients.deadlineMs;
  const res = await callEnvelope(
    client,
    client[method],
    billingFileRpc[method],
    toWire(org),
    { id, body },
    {
      deadlineMs,
      target: 'billing',
    },
  );
  return { bytes: Buffer.from(res.content), filename: res.fileName };
}

const SETTINGS_RULES =
  'settings enforced first (403 EINVOICE_DISABLED, 403 EINVOICE_FORMAT_NOT_ALLOWED), drafts 409 INVOICE_NOT_ISSUED, missing data or (strictValidation) failed validation 422 EINVOICE_READINESS_FAILED naming the fields or rules';

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });
const creditNotes = resource({ tag: 'Credit notes', scopePrefix: 'credit_note' });

/** The validation reports of the e-invoices generated for one document, the latest per format. */
function reportsRow(
  documents: typeof invoices,
  path: string,
  operationId: string,
  documentKind: 'invoice' | 'credit_note',
  what: string,
) {
  return documents({
    method: 'GET',
    path,
    operationId,
    response: einvoiceReportList,
    summary: `Validation reports of the e-invoices generated for ${what}, the latest per format`,
    params: idParams,
    async handler({ deps, org, params }) {
      return billingJson(deps, org, 'listEInvoiceReports', { id: params.id, body: { documentKind } });
    },
  });
}

/** The e-invoice downloads of an issued invoice by format: path below /invoices/:id, operationId, file, summary. */
const INVOICE_EINVOICES: Record<EInvoiceFormat, [string, string, 'xml' | 'pdf', string]> = {
  xrechnung: ['xml', 'getInvoiceXRechnungXml', 'xml', 'XRechnung 3.0 UBL XML of an issued invoice'],
  peppol: [
    'xml/peppol',
    'getInvoicePeppolXml',
    'xml',
    'Peppol BIS Billing 3.0 UBL XML of an issued invoice, endpoint IDs from the seller and buyer routing addresses',
  ],
  zugferd: [
    'pdf/zugferd',
    'getInvoiceZugferdPdf',
    'pdf',
    'Factur-X / ZUGFeRD (EN 16931) hybrid PDF of an issued invoice',
  ],
};

/** E-invoice downloads (XRechnung, Peppol BIS 3.0, Factur-X / ZUGFeRD) and their validation reports. */
export const einvoiceRoutes = [
  ...EINVOICE_FORMATS.map((format) => {
    const [path, operationId, output, summary] = INVOICE_EINVOICES[format];
    return invoices({
      method: 'GET',
      path: `/invoices/:id/${path}`,
      operationId,
      action: 'execute',
      response: fileAnswer,
      file: output === 'pdf' ? PDF : XML,
      errors: [409, 422, 503],
      summary: `${summary}; ${SETTINGS_RULES}`,
      params: idParams,
      async handler({ deps, org, params }) {
        return einvoiceFile(deps, org, 'renderInvoiceEInvoice', params.id, { format, output });
      },
    });
  }),
  reportsRow(invoices, '/invoices/:id/einvoice-reports', 'listInvoiceEInvoiceReports', 'invoice', 'an invoice'),
  creditNotes({
    method: 'GET',
    path: '/credit-notes/:id/xml',
    operationId: 'getCreditNoteEInvoiceXml',
    action: 'execute',
    response: fileAnswer,
    file: XML,
    errors: [422, 503],
    summary: `E-invoice XML of a credit note: UBL CreditNote (format xrechnung, the default, or peppol) or CII 381 (zugferd); settings enforced as for invoices`,
    params: idParams,
    query: z.object({ format: z.enum(EINVOICE_FORMATS).default('xrechnung') }).strict(),
    async handler({ deps, org, params, query }) {
      return einvoiceFile(deps, org, 'renderCreditNoteEInvoice', params.id, { format: query.format, output: 'xml' });
    },
  }),
  reportsRow(
    creditNotes,
    '/credit-notes/:id/einvoice-reports',
    'listCreditNoteEInvoiceReports',
    'credit_note',
    'a credit note',
  ),
];
