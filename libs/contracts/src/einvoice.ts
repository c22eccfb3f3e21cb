import { z } from 'zod';
import { EINVOICE_FORMATS, postalAddress } from './settings';
import { documentView } from './documents';

/**
 * E-invoices (XRechnung UBL, Peppol BIS Billing 3.0 UBL, Factur-X / ZUGFeRD EN 16931 CII). Billing
 * builds an {@link EInvoiceDocument} from an issued invoice's snapshot (or a credit note) with every
 * value in clear and the EN 16931 VAT category of each line decided; the documents service writes
 * the XML (and the hybrid PDF) from it and answers a validation report. Money is an integer in
 * minor units of `currency`.
 */

export const einvoiceFormat = z.enum(EINVOICE_FORMATS);
export type EInvoiceFormat = z.infer<typeof einvoiceFormat>;

/** UNCL5305 VAT category codes the platform emits (EN 16931 BT-118 / BT-151). */
export const VAT_CATEGORIES = ['S', 'Z', 'AE', 'K', 'G'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const money = z.number().int();

/** A Peppol participant identifier: EAS scheme (9930, 0088, 0204) and value. */
export const einvoiceEndpoint = z.object({ schemeId: z.string().regex(/^\d{4}$/), value: z.string().min(1).max(128) });

export const einvoiceParty = z.object({
  name: z.string().min(1).max(200),
  address: postalAddress.nullable(),
  email: z.string().max(254).nullable(),
  phone: z.string().max(50).nullable(),
  /** Seller: its VAT ID (BT-31); buyer: its VAT ID (BT-48) when it has one. */
  vatId: z.string().max(50).nullable(),
  /** Peppol routing address (BT-34 / BT-49 with its scheme). */
  endpoint: einvoiceEndpoint.nullable(),
});
export type EInvoiceParty = z.infer<typeof einvoiceParty>;

export const einvoiceLine = z.object({
  /** Line number, 1-based. */
  id: z.string().min(1).max(20),
  description: z.string().min(1).max(500),
  quantity: z.number().int().min(1),
  /** Net amount of the line (BT-131); the net unit price is derived as net / quantity. */
  net: money,
  tax: money,
  taxRate: z.number().min(0),
  category: z.enum(VAT_CATEGORIES),
});
export type EInvoiceLine = z.infer<typeof einvoiceLine>;

export const einvoiceDocument = z.object({
  kind: z.enum(['invoice', 'credit_note']),
  number: z.string().min(1).max(100),
  issueDate: isoDate,
  dueDate: isoDate.nullable(),
  servicePeriod: z.object({ start: isoDate, end: isoDate }).nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** BT-10: the buyer's Leitweg-ID when it has one, else the document number. */
  buyerReference: z.string().min(1).max(200),
  /** Credit notes: the invoice they credit (BT-25 / BT-26). */
  precedingInvoice: z.object({ number: z.string(), issueDate: isoDate.nullable() }).nullable(),
  seller: einvoiceParty.extend({ iban: z.string().max(34).nullable() }),
  buyer: einvoiceParty,
  lines: z.array(einvoiceLine).min(1).max(500),
  totals: z.object({ net: money, tax: money, gross: money }),
  /** Payment terms text (BT-20). */
  paymentTerms: z.string().max(500).nullable(),
  /** Free text (BT-22): notes, a credit note's reason. */
  note: z.string().max(2000).nullable(),
});
export type EInvoiceDocument = z.infer<typeof einvoiceDocument>;

/** One finding of the validation of a generated e-invoice. */
export const einvoiceFinding = z.object({
  /** Rule identifier: an EN 16931 / XRechnung / Peppol rule id where one applies (BR-16, BR-DE-1, PEPPOL-EN16931-R020). */
  rule: z.string(),
  severity: z.enum(['error', 'warning']),
  /** The business term or field concerned (BT-84 seller IBAN). */
  field: z.string().nullable(),
  message: z.string(),
});
export type EInvoiceFinding = z.infer<typeof einvoiceFinding>;

/** Validation report of one generated e-invoice, stored beside the document. */
export const einvoiceReport = z.object({
  format: einvoiceFormat,
  /** `ubl` or `cii`; the document element (Invoice, CreditNote, CrossIndustryInvoice). */
  syntax: z.enum(['ubl', 'cii']),
  documentType: z.string(),
  /** BT-24 specification identifier written. */
  specification: z.string(),
  /** Which checker produced the report. */
  validator: z.string(),
  valid: z.boolean(),
  errors: z.number().int().min(0),
  warnings: z.number().int().min(0),
  findings: z.array(einvoiceFinding),
  checkedAt: z.string(),
});
export type EInvoiceReport = z.infer<typeof einvoiceReport>;

/** What billing asks of the documents service (`RenderEInvoiceRequest.body_json`). */
export const renderEInvoiceBody = z.object({
  format: einvoiceFormat,
  /** `xml`: the XML alone; `pdf`: the Factur-X / ZUGFeRD hybrid (zugferd only). */
  output: z.enum(['xml', 'pdf']),
  document: einvoiceDocument,
  /** How the visible part of a hybrid PDF is printed (language, date-of-supply rule); absent: English. */
  print: documentView.pick({ language: true, supplyDateRule: true }).optional(),
});
export type RenderEInvoiceBody = z.infer<typeof renderEInvoiceBody>;

/** Reports stored for one invoice or credit note (`GET /invoices/:id/einvoice-reports`). */
export const einvoiceReportEntry = einvoiceReport.extend({
  /** What the report was made for: the snapshot of the document as corrected so far. */
  documentKind: z.enum(['invoice', 'credit_note']),
  documentId: z.string(),
  snapshotVersion: z.string(),
  /** `refused`: the report had errors and strictValidation refused the file; `delivered`: answered (with errors only when strictValidation is off). */
  outcome: z.enum(['delivered', 'refused']),
});
export type EInvoiceReportEntry = z.infer<typeof einvoiceReportEntry>;

export const einvoiceReportList = z.object({ documentId: z.string(), items: z.array(einvoiceReportEntry) });
export type EInvoiceReportList = z.infer<typeof einvoiceReportList>;

/**
 * What each e-invoice format needs of the seller and the organization's settings lack, before any
 * invoice is issued (the same rules that refuse a download with 422 EINVOICE_READINESS_FAILED;
 * buyer fields are checked per document). `field` names the setting to fill: `invoicing.*` as in
 * PUT /organizations/settings/invoicing, `tax.*` as in PUT /organizations/settings/tax.
 */
export const einvoiceReadinessView = z.object({
  formats: z.array(
    z.object({
      format: einvoiceFormat,
      allowed: z.boolean().describe('whether eInvoice.enabled is on and the format is in eInvoice.allowedFormats'),
      ready: z.boolean().describe('no missing value blocks the format'),
      missing: z.array(z.object({ field: z.string(), message: z.string() })),
    }),
  ),
});
export type EInvoiceReadinessView = z.infer<typeof einvoiceReadinessView>;
