import { z } from 'zod';
import { datevSettingsPatch } from './accounting-export';
import { senderEmailAddress } from './hostname';

/**
 * Update payloads of the merchant settings (Admin API `PUT /organizations/settings/*` and
 * `PUT /sites/:id/settings/invoicing`). The gateway validates the HTTP body with these schemas and
 * forwards it as a JSON merge patch; the owning service parses it again with the same schema and
 * then applies its own rules (IBAN checksum, country list, numbering consistency).
 *
 * Merge rules (RFC 7386 style): only the fields present change; `null` clears a nullable field;
 * arrays are replaced whole; value objects (`companyAddress`, `bankIBAN`,
 * `sellerPeppolRoutingAddress`) are replaced whole, while setting groups (`eInvoice`, the two
 * numbering layouts, `rounding`) merge field by field. Unknown fields are rejected.
 */

/** Literal parts of a document number (prefix, infix, suffix): letters, digits and `. _ / -`. */
export const numberAffix = z
  .string()
  .max(20)
  .regex(/^[A-Za-z0-9._/-]*$/, 'may contain only letters, digits and . _ / -');

/** ISO 3166-1 alpha-2 shape; the owning service checks the code against the ISO list. */
export const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code (e.g. DE)')
  .transform((s) => s.toUpperCase());

const text = (max: number) => z.string().trim().min(1).max(max);

export const PERIOD_TYPES = ['none', 'calendar', 'fiscal'] as const;
export const PERIOD_GRANULARITIES = ['year', 'year_month', 'year_month_day'] as const;
export const FISCAL_YEAR_LABEL_MODES = ['end_year', 'start_year'] as const;
export const PERIOD_SEPARATORS = ['dash', 'none'] as const;
export const RESET_POLICIES = ['never', 'calendar_year', 'fiscal_year'] as const;
export const EINVOICE_FORMATS = ['xrechnung', 'peppol', 'zugferd'] as const;

/** Languages invoices, credit notes and their e-mails are written in (one message file each). */
export const DOCUMENT_LANGUAGES = ['en', 'de'] as const;
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];
export const documentLanguage = z.enum(DOCUMENT_LANGUAGES);

/**
 * What an invoice states as the date of supply when its draft names no service period
 * (§ 14 (4) no. 6 UStG): `invoice_date` "the date of supply is the invoice date", `invoice_month`
 * "the service period is the calendar month of the invoice date" (§ 31 (4) UStDV).
 */
export const SUPPLY_DATE_RULES = ['invoice_date', 'invoice_month'] as const;
export type SupplyDateRule = (typeof SUPPLY_DATE_RULES)[number];

/** E-invoice formats an invoice e-mail can carry: XRechnung XML beside the PDF, or the ZUGFeRD PDF itself. */
export const EMAIL_EINVOICE_FORMATS = ['xrechnung', 'zugferd'] as const;
export type EmailEInvoiceFormat = (typeof EMAIL_EINVOICE_FORMATS)[number];

/** A complete numbering layout (invoice or credit note). */
export const numberingLayout = z
  .object({
    prefix: numberAffix,
    periodType: z.enum(PERIOD_TYPES),
    periodGranularity: z.enum(PERIOD_GRANULARITIES),
    fiscalYearStartMonth: z.number().int().min(1).max(12),
    fiscalYearLabelMode: z.enum(FISCAL_YEAR_LABEL_MODES),
    periodSeparator: z.enum(PERIOD_SEPARATORS),
    infix: numberAffix,
    sequenceDigits: z.number().int().min(1).max(12),
    suffix: numberAffix,
    resetPolicy: z.enum(RESET_POLICIES),
    startNumber: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  })
  .strict();
export type NumberingLayout = z.infer<typeof numberingLayout>;

export const postalAddress = z
  .object({
    street: text(200),
    city: text(100),
    postalCode: text(20),
    country: countryCode,
  })
  .strict();
export type PostalAddress = z.infer<typeof postalAddress>;

/** Peppol participant identifier: ICD scheme (4 digits, e.g. 9930, 0088, 0204) and value. */
export const peppolRoutingAddressInput = z
  .object({
    schemeId: z.string().regex(/^\d{4}$/, 'must be a 4-digit ICD scheme identifier (e.g. 9930, 0088, 0204)'),
    value: z.object({ plaintext: text(128) }).strict(),
  })
  .strict();

export const eInvoiceSettingsPatch = z
  .object({
    enabled: z.boolean(),
    allowedFormats: z.array(z.enum(EINVOICE_FORMATS)).max(EINVOICE_FORMATS.length),
    strictValidation: z.boolean(),
    sellerPeppolRoutingAddress: peppolRoutingAddressInput.nullable(),
    /**
     * The e-invoice attached to invoice and credit-note e-mails of business clients (clients with a
     * tax ID) whose own `eInvoiceFormat` is not set; null attaches none. Must be an allowed format.
     */
    emailFormat: z.enum(EMAIL_EINVOICE_FORMATS).nullable(),
  })
  .strict()
  .partial();

/** How documents and their e-mails are written (a setting group: merges field by field). */
export const documentSettingsPatch = z
  .object({
    /** Language of clients without their own `language`. */
    language: documentLanguage,
    /** Date of supply stated on invoices whose draft names no service period. */
    supplyDateRule: z.enum(SUPPLY_DATE_RULES),
    /** `Reply-To` of document e-mails (the merchant's billing address); null: `companyEmail`. */
    replyToEmail: z.string().trim().max(254).email().nullable(),
    /**
     * `From` address of document e-mails at the merchant's own domain, used once verified by a DNS
     * TXT record (`POST /organizations/settings/invoicing/sender/verify`); another address starts a
     * new verification; null: the platform's address.
     */
    senderEmail: senderEmailAddress.nullable(),
  })
  .strict()
  .partial();

export const SENDER_STATES = ['pending', 'verified', 'failed'] as const;

/** A sender address (`documents.senderEmail`) and its DNS verification, as the settings show it. */
export const senderVerificationView = z.object({
  email: z.string().describe('the From address of document e-mails once verified'),
  state: z
    .enum(SENDER_STATES)
    .describe(
      'pending: set, not checked yet; verified: the TXT record was found at the last check (e-mails are sent from this address); failed: not found at the last check (e-mails keep the platform address)',
    ),
  dnsRecord: z
    .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
    .describe("the record to publish at the address's domain; a new address gets a new value"),
  checkedAt: z.string().nullable().describe('time of the last check; null until checked'),
  verifiedAt: z.string().nullable().describe('since when the address is verified; null while not'),
  reason: z.string().nullable().describe('why the last check failed; null otherwise'),
});
export type SenderVerificationView = z.infer<typeof senderVerificationView>;

/** Answer of `POST /organizations/settings/invoicing/sender/verify`: the stored outcome and what DNS answered. */
export const senderCheckView = senderVerificationView.extend({
  foundValues: z.array(z.string()).describe('the TXT records found at dnsRecord.name'),
});
export type SenderCheckView = z.infer<typeof senderCheckView>;

/** Body of `PUT /organizations/settings/invoicing`. */
export const invoicingSettingsPatch = z
  .object({
    enabled: z.boolean(),
    autoGenerateInvoice: z.boolean(),
    companyName: text(200).nullable(),
    companyAddress: postalAddress.nullable(),
    companyEmail: z.string().trim().max(254).email().nullable(),
    /** Seller contact telephone (e-invoices: XRechnung BT-42): digits, spaces and + ( ) / - . */
    companyPhone: z
      .string()
      .trim()
      .min(3)
      .max(50)
      .regex(/^\+?[0-9 ()/.-]*[0-9][0-9 ()/.-]*$/, 'must be a telephone number (digits, spaces and + ( ) / - .)')
      .nullable(),
    /** Write-only: stored encrypted, returned masked. */
    bankIBAN: z
      .object({ plaintext: text(64) })
      .strict()
      .nullable(),
    eInvoice: eInvoiceSettingsPatch,
    autoPaymentLinkExpiresInHours: z.number().int().min(1).max(3120),
    /** IANA time zone (`Europe/Berlin`) whose calendar day dates documents and their numbers' period. */
    timeZone: z.string().min(1).max(64),
    invoiceNumberLayout: numberingLayout.partial(),
    creditNoteNumberLayout: numberingLayout.partial(),
    /**
     * Retention (§ 147 AO) in years after the end of a document's calendar year: vouchers (invoices,
     * credit notes) at least 8, books and records at least 10; longer when the merchant must keep longer.
     */
    retention: z
      .object({
        voucherYears: z.number().int().min(8, 'must be at least 8 (§ 147 AO)').max(50),
        recordYears: z.number().int().min(10, 'must be at least 10 (§ 147 AO)').max(50),
      })
      .strict()
      .partial(),
    /** DATEV export: adviser and client numbers, chart and account mapping (groups merge field by field). */
    datev: datevSettingsPatch,
    documents: documentSettingsPatch,
  })
  .strict()
  .partial();
export type InvoicingSettingsPatch = z.infer<typeof invoicingSettingsPatch>;

/** Body of `PUT /sites/:id/settings/invoicing`: `null` inherits the organization's prefix. */
export const siteInvoicingSettingsPatch = z
  .object({
    invoicePrefix: numberAffix.nullable(),
    creditNotePrefix: numberAffix.nullable(),
  })
  .strict()
  .partial();
export type SiteInvoicingSettingsPatch = z.infer<typeof siteInvoicingSettingsPatch>;

export const ROUNDING_LEVELS = ['per_line', 'per_document'] as const;
export const ROUNDING_METHODS = ['half_up', 'half_even'] as const;
export const PRICE_MODES = ['gross', 'net'] as const;

/** Body of `PUT /organizations/settings/tax`. */
export const taxSettingsPatch = z
  .object({
    homeCountry: countryCode.nullable(),
    ossEnabled: z.boolean(),
    iossEnabled: z.boolean(),
    viesEnabled: z.boolean(),
    /**
     * The organization's own VAT ID (e.g. `DE123456789`), sent to VIES as the requester so VIES
     * issues a consultation number; the tax service checks its format and check digits.
     */
    vatId: z.string().max(40).nullable(),
    priceMode: z.enum(PRICE_MODES),
    rounding: z
      .object({ level: z.enum(ROUNDING_LEVELS), method: z.enum(ROUNDING_METHODS) })
      .strict()
      .partial(),
  })
  .strict()
  .partial();
export type TaxSettingsPatch = z.infer<typeof taxSettingsPatch>;

/** Body of `PUT /organizations/settings/portal`. */
export const portalSettingsPatch = z
  .object({
    enabled: z.boolean(),
    magicLinksEnabled: z.boolean(),
    /** E-invoice formats buyers may download in the portal (the organization's e-invoice settings must allow each too). */
    eInvoiceFormats: z
      .array(z.enum(['xrechnung', 'peppol', 'zugferd']))
      .max(3)
      .transform((a) => [...new Set(a)]),
    /** Pro forma PDF previews of a subscription's first upcoming charge in the portal. */
    proformaPreviewsEnabled: z.boolean(),
  })
  .strict()
  .partial();
export type PortalSettingsPatch = z.infer<typeof portalSettingsPatch>;

/** Body of `POST /organizations/settings/invoicing/number-preview`: layouts as a save would patch them. */
export const numberPreviewRequest = z
  .object({ invoiceNumberLayout: numberingLayout.partial(), creditNoteNumberLayout: numberingLayout.partial() })
  .strict()
  .partial();

/** The next numbers under the previewed layouts (nothing drawn). */
export const numberPreview = z.object({
  invoice: z.string().describe('the number the next invoice issued today would get (before a site prefix)'),
  creditNote: z.string().describe('the number the next credit note issued today would get'),
  day: z.string().describe("today in the organization's time zone (the period the numbers show)"),
});
