import { z } from 'zod';
import {
  clientCreateRequest,
  clientDeleted,
  clientHistoryPage,
  clientHistoryQuery,
  clientListQuery,
  clientPage,
  clientReadOptions,
  clientRecord,
  clientSearchQuery,
  clientUpdateRequest,
} from './billing-clients';
import { documentEmailRecord, documentEmailRequest } from './billing-email';
import {
  creditNoteListQuery,
  creditNotePage,
  creditNoteRecord,
  invoiceCorrection,
  invoiceCreate,
  invoiceDeleted,
  invoiceFromTransaction,
  invoiceLinkTransaction,
  invoiceListQuery,
  invoiceNotesUpdate,
  invoicePage,
  invoiceRecord,
  invoiceTaxPreviewRequest,
  invoiceTotals,
  invoiceUpdate,
  invoiceVoid,
} from './billing-invoices';
import { invoicePaymentCheckout, invoicePaymentCheckoutRequest } from './billing-payment-links';
import {
  datevExportId,
  datevExportListQuery,
  datevExportPage,
  datevExportRecord,
  datevExportRequest,
  gdpduExportRequest,
} from './accounting-export';
import {
  dataExportRequest,
  dataImportHeader,
  dataImportJob,
  dataImportJobHeader,
  dataImportJobId,
  dataTemplate,
  dataTemplateRequest,
} from './data-io';
import { einvoiceFormat, einvoiceReadinessView, einvoiceReportList } from './einvoice';
import { documentIntegrityExport, documentIntegrityReport } from './document-integrity';
import { emptyBody, envelopeRpc, jsonRpc } from './rpc';
import { taxCalculation } from './tax';
import { numberPreview, numberPreviewRequest, senderCheckView } from './settings';

/** Body of `RenderInvoiceEInvoice` / `RenderCreditNoteEInvoice`. */
export const einvoiceRequest = z
  .object({ format: einvoiceFormat, output: z.enum(['xml', 'pdf']).default('xml') })
  .strict()
  .refine((r) => r.output === 'xml' || r.format === 'zugferd', {
    message: 'a PDF carries the zugferd format only',
    path: ['output'],
  });
export type EInvoiceRequest = z.infer<typeof einvoiceRequest>;

/** Body of `RenderProformaPreview`: an invoice that does not exist (yet), printed as a pro forma. */
export const proformaPreviewBody = z
  .object({
    /** What the preview is of (a recurring schedule): a 24-hex id, never an invoice's. */
    sourceId: z.string().regex(/^[0-9a-f]{24}$/, 'sourceId must be a 24-hex identifier'),
    /** The document number printed (`PROFORMA-…`). */
    number: z
      .string()
      .regex(/^PROFORMA-[A-Za-z0-9-]{1,40}$/, 'number must be PROFORMA- followed by letters, digits or dashes'),
    /** The invoice payload as `POST /invoices` takes it (its `issueDate` is the tax point and printed date). */
    invoice: invoiceCreate,
  })
  .strict();
export type ProformaPreviewBody = z.infer<typeof proformaPreviewBody>;

/** The buyer of a portal call (the envelope's `email`): trimmed, lower-cased. */
export const portalEmail = z
  .string()
  .trim()
  .max(254)
  .email('must be an e-mail address')
  .transform((e) => e.trim().toLowerCase());

export const portalDocumentsQuery = z
  .object({
    page: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export const portalDocumentPdfBody = z.object({ type: z.enum(['invoice', 'credit-note']).default('invoice') }).strict();
export const portalEInvoiceBody = z.object({ format: einvoiceFormat }).strict();
export type PortalDocumentsQuery = z.output<typeof portalDocumentsQuery>;
export type PortalDocumentPdfBody = z.output<typeof portalDocumentPdfBody>;
export type PortalEInvoiceBody = z.output<typeof portalEInvoiceBody>;

/** One document of the buyer portal's list. */
export const portalDocumentItem = z.object({
  id: z.string(),
  type: z.enum(['invoice', 'credit-note']),
  /** The final number; a draft's pro forma label. */
  number: z.string(),
  /** Invoice: draft, issued, partially_paid or paid; credit note: issued. */
  status: z.string(),
  issueDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  currency: z.string(),
  /** Gross total, minor units. */
  total: z.number().int(),
  /** Still to pay (invoices; 0 for credit notes). */
  amountDue: z.number().int(),
  pdfAvailable: z.boolean(),
  /** E-invoice formats the buyer may download for it (issued invoices only). */
  eInvoiceFormats: z.array(einvoiceFormat),
  createdAt: z.string(),
});
export type PortalDocumentItem = z.infer<typeof portalDocumentItem>;
export const portalDocumentList = z.object({
  items: z.array(portalDocumentItem),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

/** Answer of `PreviewInvoiceTax`: the tax the engine would put on a draft, and its totals. */
export const invoiceTaxPreview = z.object({ taxCalculation, totals: invoiceTotals });

/**
 * The billing service's JSON-answer RPCs: method -> body schema (`request`) and answer schema. The
 * gateways' calls and billing's handlers are both typed from this map.
 */
export const billingRpc = {
  listClients: jsonRpc(clientListQuery, clientPage),
  searchClients: jsonRpc(clientSearchQuery, clientPage),
  getClient: jsonRpc(clientReadOptions, clientRecord),
  createClient: jsonRpc(clientCreateRequest, clientRecord),
  updateClient: jsonRpc(clientUpdateRequest, clientRecord),
  deleteClient: jsonRpc(emptyBody, clientDeleted),
  getClientHistory: jsonRpc(clientHistoryQuery, clientHistoryPage),

  listInvoices: jsonRpc(invoiceListQuery, invoicePage),
  getInvoice: jsonRpc(emptyBody, invoiceRecord),
  createInvoice: jsonRpc(invoiceCreate, invoiceRecord),
  previewInvoiceTax: jsonRpc(invoiceTaxPreviewRequest, invoiceTaxPreview),
  createInvoiceFromTransaction: jsonRpc(invoiceFromTransaction, invoiceRecord),
  updateInvoice: jsonRpc(invoiceUpdate, invoiceRecord),
  updateInvoiceNotes: jsonRpc(invoiceNotesUpdate, invoiceRecord),
  linkInvoiceTransaction: jsonRpc(invoiceLinkTransaction, invoiceRecord),
  deleteInvoice: jsonRpc(emptyBody, invoiceDeleted),
  issueInvoice: jsonRpc(emptyBody, invoiceRecord),
  voidInvoice: jsonRpc(invoiceVoid, invoiceRecord),
  correctInvoice: jsonRpc(invoiceCorrection, invoiceRecord),
  createInvoicePaymentCheckout: jsonRpc(invoicePaymentCheckoutRequest, invoicePaymentCheckout),
  sendInvoiceEmail: jsonRpc(documentEmailRequest, documentEmailRecord),

  listCreditNotes: jsonRpc(creditNoteListQuery, creditNotePage),
  getCreditNote: jsonRpc(emptyBody, creditNoteRecord),
  sendCreditNoteEmail: jsonRpc(documentEmailRequest, documentEmailRecord),

  listEInvoiceReports: jsonRpc(
    z.object({ documentKind: z.enum(['invoice', 'credit_note']) }).strict(),
    einvoiceReportList,
  ),

  verifyDocumentIntegrity: jsonRpc(emptyBody, documentIntegrityReport),
  verifySender: jsonRpc(emptyBody, senderCheckView),
  getEInvoiceReadiness: jsonRpc(emptyBody, einvoiceReadinessView),
  previewDocumentNumbers: jsonRpc(numberPreviewRequest, numberPreview),
  exportDocumentIntegrity: jsonRpc(emptyBody, documentIntegrityExport),

  countPortalDocuments: jsonRpc(emptyBody, z.object({ count: z.number().int() })),
  listPortalDocuments: jsonRpc(portalDocumentsQuery, portalDocumentList),

  dataImportTemplate: jsonRpc(dataTemplateRequest, dataTemplate),
  listDatevExports: jsonRpc(datevExportListQuery, datevExportPage),
  startDatevExport: jsonRpc(datevExportRequest, datevExportRecord),
  getDatevExport: jsonRpc(datevExportId, datevExportRecord),
  getDataImport: jsonRpc(dataImportJobId, dataImportJob),
} as const;

/** Billing's RPCs with a JSON body and a file answer (`BillingPdfResponse`, `BillingFileResponse`). */
export const billingFileRpc = {
  getInvoicePdf: envelopeRpc(emptyBody),
  regenerateInvoicePdf: envelopeRpc(emptyBody),
  getCreditNotePdf: envelopeRpc(emptyBody),
  renderInvoiceEInvoice: envelopeRpc(einvoiceRequest),
  renderCreditNoteEInvoice: envelopeRpc(einvoiceRequest),
  getPortalDocumentPdf: envelopeRpc(portalDocumentPdfBody),
  renderPortalEInvoice: envelopeRpc(portalEInvoiceBody),
  renderProformaPreview: envelopeRpc(proformaPreviewBody),
} as const;

/** Billing's streaming RPCs: the body of ImportData's header message and of ExportData's request. */
export const billingStreamRpc = {
  importData: envelopeRpc(dataImportHeader),
  startDataImport: envelopeRpc(dataImportJobHeader),
  exportData: envelopeRpc(dataExportRequest),
  exportDatev: envelopeRpc(datevExportRequest),
  downloadDatevExport: envelopeRpc(datevExportId),
  exportGdpdu: envelopeRpc(gdpduExportRequest),
} as const;
