import { z, type ZodTypeAny } from 'zod';
import { documentEmailRecord } from './billing-email';
import { numberingLayout, postalAddress } from './settings';
import { taxCalculation, taxCategory, taxPercent, TAX_ITEM_TYPES } from './tax';
import { invoicePaymentLink, invoicePaymentReversal } from './billing-payment-links';
import { objectId } from './object-id';
import { cappedListPage } from './list-page';

/**
 * Invoices and credit notes (billing service): the Admin API's inputs and read records. Billing
 * validates with these and gRPC carries them as JSON (the envelope of `billingRpc`, rpc-billing.ts), the gateway
 * documents and checks its responses with the same schemas. Money is an integer in minor units.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code (e.g. EUR)')
  .transform((s) => s.toUpperCase());

/** Lifecycle: draft -> issued -> (partially_paid | paid) ; issued/partially_paid/paid -> void. */
export const INVOICE_STATUSES = ['draft', 'issued', 'partially_paid', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Why a credit note was issued. */
export const CREDIT_NOTE_KINDS = ['void', 'refund', 'chargeback'] as const;
export type CreditNoteKind = (typeof CREDIT_NOTE_KINDS)[number];

/** Lines of one invoice at most. */
export const MAX_INVOICE_LINES = 500;

/** One invoice line as the merchant enters it. */
export const invoiceItemInput = z
  .object({
    description: z.string().trim().min(1).max(500),
    /** Whole units, at least 1 (a negative quantity is refused, not read as a credit). */
    quantity: z.number().int().min(1).max(1_000_000),
    /** Minor units, 0 or more (discounts are a credit note or a lower price, not a negative line). */
    unitPrice: z.number().int().min(0).max(999_999_999_999),
    /** Whether `unitPrice` includes tax. */
    amountType: z.enum(['gross', 'net']).default('gross'),
    /** Manual tax override in percent; omitted: the tax engine decides. */
    taxRate: taxPercent.optional(),
    itemType: z.enum(TAX_ITEM_TYPES),
    category: taxCategory.optional(),
  })
  .strict();
export type InvoiceItemInput = z.infer<typeof invoiceItemInput>;
export type InvoiceItem = z.output<typeof invoiceItemInput>;

/** Period the invoiced supply was made in (both days inclusive). */
export const servicePeriod = z
  .object({ start: isoDate, end: isoDate })
  .strict()
  .refine((p) => p.start <= p.end, { message: 'start must not be after end', path: ['end'] });
export type ServicePeriod = z.infer<typeof servicePeriod>;

const draftFields = {
  siteId: objectId,
  clientId: objectId,
  currency,
  items: z.array(invoiceItemInput).min(1).max(MAX_INVOICE_LINES, `at most ${MAX_INVOICE_LINES} lines`),
  /** Issue date wanted; omitted: the day the invoice is issued (organization time zone). */
  issueDate: isoDate.optional(),
  /** Either a due date or payment terms (days after the issue date), not both. */
  dueDate: isoDate.optional(),
  paymentTermsDays: z.number().int().min(0).max(365).optional(),
  servicePeriod: servicePeriod.optional(),
  notes: z.string().trim().max(2000).optional(),
};

const oneDueRule = <T extends { dueDate?: string; paymentTermsDays?: number }>(v: T) =>
  v.dueDate === undefined || v.paymentTermsDays === undefined;
const oneDueMessage = { message: 'give dueDate or paymentTermsDays, not both', path: ['paymentTermsDays'] };

/** Body of `POST /invoices`: a draft. */
export const invoiceCreate = z.object(draftFields).strict().refine(oneDueRule, oneDueMessage);
export type InvoiceCreate = z.infer<typeof invoiceCreate>;

/**
 * What the tax preview of a draft reads (`PreviewInvoiceTax`): the draft's own payload, the site
 * optional (a draft may be previewed before it is filed under a site).
 */
export const invoiceTaxPreviewRequest = z
  .object({ ...draftFields, siteId: objectId.optional() })
  .strict()
  .refine(oneDueRule, oneDueMessage);
export type InvoiceTaxPreviewRequest = z.infer<typeof invoiceTaxPreviewRequest>;

/** Body of `PUT /invoices/:id` (drafts only): replaces every editable field. */
export const invoiceUpdate = invoiceCreate;
export type InvoiceUpdate = InvoiceCreate;

/** Body of `POST /invoices/from-transaction/:transactionId`: what the transaction does not say. */
export const invoiceFromTransaction = z
  .object({
    /** The buyer; omitted: the transaction's client (none there either: 400 naming clientId). */
    clientId: objectId.optional(),
    issueDate: isoDate.optional(),
    dueDate: isoDate.optional(),
    paymentTermsDays: z.number().int().min(0).max(365).optional(),
    servicePeriod: servicePeriod.optional(),
    notes: z.string().trim().max(2000).optional(),
  })
  .strict()
  .refine(oneDueRule, oneDueMessage);
export type InvoiceFromTransaction = z.infer<typeof invoiceFromTransaction>;

/** Body of `PATCH /invoices/:id/notes` (any status; notes are not part of the legal snapshot). */
export const invoiceNotesUpdate = z.object({ notes: z.string().trim().max(2000).nullable() }).strict();
export type InvoiceNotesUpdate = z.infer<typeof invoiceNotesUpdate>;

/** Body of `PUT /invoices/:id/transaction`: the payment that pays the invoice. */
export const invoiceLinkTransaction = z.object({ transactionId: objectId }).strict();
export type InvoiceLinkTransaction = z.infer<typeof invoiceLinkTransaction>;

/** Body of `POST /invoices/:id/void` (optional reason, printed on the credit note). */
export const invoiceVoid = z.object({ reason: z.string().trim().min(1).max(500).optional() }).strict();
export type InvoiceVoid = z.infer<typeof invoiceVoid>;

/** Buyer fields of an issued invoice that a correction may change (the snapshot, never the client). */
export const CORRECTABLE_BUYER_FIELDS = ['name', 'email', 'address', 'taxId', 'peppolRoutingAddress'] as const;

export const peppolRoutingAddress = z
  .object({
    schemeId: z.string().regex(/^\d{4}$/, 'must be a 4-digit ICD scheme identifier (e.g. 9930, 0088, 0204)'),
    value: z.string().trim().min(1).max(128),
  })
  .strict();
export type PeppolRoutingAddress = z.infer<typeof peppolRoutingAddress>;

export const invoiceCorrectionChanges = z
  .object({
    client: z
      .object({
        name: z.string().trim().min(1).max(200),
        email: z.string().trim().max(254).email().nullable(),
        address: postalAddress.nullable(),
        taxId: z.string().trim().min(1).max(50).nullable(),
        peppolRoutingAddress: peppolRoutingAddress.nullable(),
      })
      .strict()
      .partial()
      .refine((c) => Object.keys(c).length > 0, 'name at least one buyer field to correct'),
  })
  .strict();
export type InvoiceCorrectionChanges = z.infer<typeof invoiceCorrectionChanges>;

/** Body of `POST /invoices/:id/correct`. Amounts and lines are corrected by a credit note and a new invoice. */
export const invoiceCorrection = z
  .object({ reason: z.string().trim().min(1).max(500), changes: invoiceCorrectionChanges })
  .strict();
export type InvoiceCorrection = z.infer<typeof invoiceCorrection>;

const paging = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
};

/** Filters of `GET /invoices` (newest first). Dates filter the issue date, inclusive. */
export const invoiceListQuery = z
  .object({
    ...paging,
    status: z.enum(INVOICE_STATUSES).optional(),
    clientId: objectId.optional(),
    siteId: objectId.optional(),
    startDate: isoDate.optional(),
    endDate: isoDate.optional(),
    /** Exact number, or a prefix when it ends with `*` (`INV-2027-*`). */
    number: z.string().min(1).max(100).optional(),
    /** true: paid in full; false: not (drafts, issued, partially paid). */
    paid: z.boolean().optional(),
    transactionId: objectId.optional(),
    /** Gross total from (inclusive), minor units. */
    minAmount: z.number().int().min(0).optional(),
    /** Gross total up to (inclusive), minor units. */
    maxAmount: z.number().int().min(0).optional(),
  })
  .strict();
export type InvoiceListQuery = z.infer<typeof invoiceListQuery>;

/** Filters of `GET /credit-notes` (newest first). Dates filter the issue date, inclusive. */
export const creditNoteListQuery = z
  .object({ ...paging, invoiceId: objectId.optional(), startDate: isoDate.optional(), endDate: isoDate.optional() })
  .strict();
export type CreditNoteListQuery = z.infer<typeof creditNoteListQuery>;

// ---------------------------------------------------------------------------------------------
// Read records

export const invoiceTotals = z.object({
  net: z.number().int(),
  tax: z.number().int(),
  gross: z.number().int(),
});
export type InvoiceTotals = z.infer<typeof invoiceTotals>;

/** The seller as printed on an issued document. */
export const invoiceSeller = z.object({
  companyName: z.string().nullable(),
  address: postalAddress.nullable(),
  email: z.string().nullable(),
  vatId: z.string().nullable(),
  homeCountry: z.string().nullable(),
  /** Payout IBAN, masked (`DE89 **** ... 3000`); the full value is kept sealed. */
  bankIBANMasked: z.string().nullable(),
});
export type InvoiceSeller = z.infer<typeof invoiceSeller>;

/** The buyer as printed on an issued document (compliance values in clear for the reader). */
export const invoiceBuyer = z.object({
  clientId: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  address: postalAddress.nullable(),
  taxId: z.string().nullable(),
  taxIdType: z.string().nullable(),
  taxCountry: z.string().nullable(),
  peppolRoutingAddress: peppolRoutingAddress.nullable(),
});
export type InvoiceBuyerView = z.infer<typeof invoiceBuyer>;

/** What was frozen when the invoice was issued; only `buyer` changes afterwards (corrections). */
export const invoiceSnapshot = z.object({
  number: z.string(),
  issueDate: isoDate,
  dueDate: isoDate.nullable(),
  servicePeriod: z.object({ start: isoDate, end: isoDate }).nullable(),
  currency: z.string(),
  seller: invoiceSeller,
  buyer: invoiceBuyer,
  lines: z.array(invoiceItemInput),
  taxCalculation,
  totals: invoiceTotals,
  settings: z.object({
    /** The layout the number was drawn from (site prefix applied). */
    numberLayout: numberingLayout,
    timeZone: z.string(),
    priceMode: z.enum(['gross', 'net']),
    rounding: z.object({ level: z.enum(['per_line', 'per_document']), method: z.enum(['half_up', 'half_even']) }),
  }),
  issuedAt: z.string(),
});
export type InvoiceSnapshot = z.infer<typeof invoiceSnapshot>;

/** One correction of an issued invoice's snapshot, kept forever. */
export const invoiceCorrectionEntry = z.object({
  at: z.string(),
  actor: z.string().nullable(),
  reason: z.string(),
  changes: z.record(z.unknown()).describe('the fields set, as sent (buyer fields under `client`)'),
  previous: z.record(z.unknown()).describe('the same fields as they were before'),
});
export type InvoiceCorrectionEntry = z.infer<typeof invoiceCorrectionEntry>;

/** A payment recorded against an invoice. */
export const invoicePayment = z.object({
  transactionId: z.string(),
  amount: z.number().int(),
  paidAt: z.string(),
});
export type InvoicePayment = z.infer<typeof invoicePayment>;

/**
 * The draft's fields as the invoice record shows them, one for each field of the draft payload
 * (`draftFields`; the compiler holds the two to the same keys): an optional one is null when the
 * draft did not give it.
 */
const draftRecordFields = {
  siteId: z.string(),
  clientId: z.string(),
  currency: z.string(),
  items: z.array(invoiceItemInput),
  issueDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  paymentTermsDays: z.number().int().nullable(),
  servicePeriod: z.object({ start: isoDate, end: isoDate }).nullable(),
  notes: z.string().nullable(),
} satisfies Record<keyof typeof draftFields, ZodTypeAny>;

export const invoiceRecord = z.object({
  id: z.string(),
  testMode: z.boolean(),
  status: z.enum(INVOICE_STATUSES),
  /** Final number, null until issued. */
  number: z.string().nullable(),
  /** Label of the draft's pro forma (`PROFORMA-<shortid>`); null once issued. */
  proformaNumber: z.string().nullable(),
  ...draftRecordFields,
  /** The tax engine's answer: the draft's preview, or the frozen calculation once issued. */
  taxCalculation: taxCalculation.nullable(),
  totals: invoiceTotals,
  amountPaid: z.number().int(),
  amountDue: z.number().int(),
  payments: z.array(invoicePayment),
  /** Payments reversed by refunds (and lost disputes) of their transactions; each with its credit note. */
  paymentReversals: z.array(invoicePaymentReversal),
  /** Hosted payment links created for the invoice (`POST /invoices/:id/payment-checkout`). */
  paymentLinks: z.array(invoicePaymentLink),
  /** The transaction linked as the invoice's payment. */
  transactionId: z.string().nullable(),
  /** The transaction the invoice was generated from. */
  sourceTransactionId: z.string().nullable(),
  snapshot: invoiceSnapshot.nullable(),
  corrections: z.array(invoiceCorrectionEntry),
  creditNoteIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  issuedAt: z.string().nullable(),
  voidedAt: z.string().nullable(),
  voidReason: z.string().nullable(),
  /** Sends of the invoice by e-mail, oldest first (absent: never sent). */
  emails: z.array(documentEmailRecord).optional(),
});
export type InvoiceRecord = z.infer<typeof invoiceRecord>;

export const creditNoteRecord = z.object({
  id: z.string(),
  testMode: z.boolean(),
  number: z.string(),
  invoiceId: z.string(),
  invoiceNumber: z.string(),
  /**
   * Why it was issued: `void` (full reversal of a voided invoice), `refund` (a refunded payment of
   * the invoice), `chargeback` (a payment lost in a dispute).
   */
  kind: z.enum(CREDIT_NOTE_KINDS),
  reason: z.string().nullable(),
  siteId: z.string(),
  clientId: z.string(),
  currency: z.string(),
  issueDate: isoDate,
  seller: invoiceSeller,
  buyer: invoiceBuyer,
  lines: z.array(invoiceItemInput),
  /** Credited amounts, positive (a credit note reduces the invoice by these). */
  taxCalculation,
  totals: invoiceTotals,
  transactionId: z.string().nullable(),
  createdAt: z.string(),
  /** Sends of the credit note by e-mail, oldest first (absent: never sent). */
  emails: z.array(documentEmailRecord).optional(),
});
export type CreditNoteRecord = z.infer<typeof creditNoteRecord>;

export const invoicePage = cappedListPage(invoiceRecord, '1,001');
export type InvoicePage = z.infer<typeof invoicePage>;
export const creditNotePage = cappedListPage(creditNoteRecord, '1,001');
export type CreditNotePage = z.infer<typeof creditNotePage>;

/** Answer of `DELETE /invoices/:id`. */
export const invoiceDeleted = z.object({ id: z.string(), deleted: z.literal(true) });
