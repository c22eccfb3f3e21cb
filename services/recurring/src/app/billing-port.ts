import type { TenantKey } from '@paymesh/core';
import type { InvoiceItemInput, InvoiceRecord, InvoiceTotals } from '@paymesh/contracts';

/** Tenant: organization and data mode. */
/** One organization in one data mode (the shared tenant key). */
export type OrgKey = TenantKey;

/** The invoice payload of one cycle: billing's draft payload (`invoiceCreate`). */
export interface CycleInvoice {
  siteId: string;
  clientId: string;
  currency: string;
  items: InvoiceItemInput[];
  paymentTermsDays?: number;
  notes?: string;
  issueDate?: string;
  servicePeriod?: { start: string; end: string };
}

/** What the recurring service needs from billing (invoices, clients, settings). */
export interface BillingPort {
  /** The client's e-mail (null when none); NotFoundError when the client is unknown. */
  clientEmail(key: OrgKey, clientId: string): Promise<string | null>;
  /** The organization's invoicing time zone (`UTC` when never set). */
  timeZone(key: OrgKey): Promise<string>;
  /** The tax the engine puts on the payload (validates site and client); stores nothing. */
  previewTax(key: OrgKey, invoice: CycleInvoice): Promise<InvoiceTotals>;
  /** Creates the draft, once per key: a repeat answers the first invoice. */
  createInvoice(key: OrgKey, invoice: CycleInvoice, idempotencyKey: string, actor: string): Promise<InvoiceRecord>;
  issueInvoice(key: OrgKey, invoiceId: string): Promise<InvoiceRecord>;
  sendInvoice(key: OrgKey, invoiceId: string): Promise<void>;
  /** Whether the organization's portal settings offer pro forma previews of upcoming charges. */
  proformaPreviewsEnabled(key: OrgKey): Promise<boolean>;
  /** The pro forma PDF of an invoice that does not exist; billing stores nothing. */
  proformaPreview(
    key: OrgKey,
    preview: { sourceId: string; number: string; invoice: CycleInvoice },
  ): Promise<{ pdf: Buffer; filename: string }>;
}
