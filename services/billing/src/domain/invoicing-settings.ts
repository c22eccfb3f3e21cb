import { ValidationError, type SealedValue } from '@paymesh/core';
import type {
  DocumentLanguage,
  EmailEInvoiceFormat,
  InvoicingSettingsPatch,
  NumberingLayout,
  PostalAddress,
  SupplyDateRule,
} from '@paymesh/contracts';
import { isIsoCountry } from './country';
import { applyDatevPatch, type StoredDatevSettings } from './datev';
import { maskIban, normalizeIban } from './iban';
import { nextSender, type SenderVerification } from './sender';
import { canonicalTimeZone, DEFAULT_CREDIT_NOTE_LAYOUT, DEFAULT_INVOICE_LAYOUT, layoutAmbiguity } from './numbering';

export type EInvoiceFormat = 'xrechnung' | 'peppol' | 'zugferd';

/** Organization invoicing settings as stored (secret values sealed). */
export interface InvoicingSettings {
  enabled: boolean;
  autoGenerateInvoice: boolean;
  companyName: string | null;
  companyAddress: PostalAddress | null;
  companyEmail: string | null;
  /** Seller contact telephone (absent on settings saved before it existed). */
  companyPhone?: string | null;
  /** Sealed IBAN (electronic format) and its display mask. */
  bankIBAN: { sealed: SealedValue; masked: string } | null;
  eInvoice: {
    enabled: boolean;
    allowedFormats: EInvoiceFormat[];
    strictValidation: boolean;
    sellerPeppolRoutingAddress: { schemeId: string; value: SealedValue } | null;
    /** Absent on settings saved before it existed: none. */
    emailFormat?: EmailEInvoiceFormat | null;
  };
  /** Language, date of supply, Reply-To and sender of documents; absent on settings saved before it existed. */
  documents?: DocumentSettings;
  autoPaymentLinkExpiresInHours: number;
  /** IANA time zone of the organization's calendar (issue dates, number periods). */
  timeZone: string;
  invoiceNumberLayout: NumberingLayout;
  creditNoteNumberLayout: NumberingLayout;
  /** Retention in years (absent on settings saved before it existed: the legal minimum). */
  retention?: Retention;
  /** DATEV export settings as saved (absent: the SKR03 defaults, no adviser numbers). */
  datev?: StoredDatevSettings;
}

/** Years issued documents are kept after the end of their calendar year (§ 147 AO). */
export interface Retention {
  /** Accounting vouchers: invoices, credit notes and their files (at least 8 since 2025). */
  voucherYears: number;
  /** Books and records (at least 10). */
  recordYears: number;
}

export const MIN_RETENTION: Retention = { voucherYears: 8, recordYears: 10 };

export function retentionOf(s: Pick<InvoicingSettings, 'retention'>): Retention {
  return {
    voucherYears: Math.max(MIN_RETENTION.voucherYears, s.retention?.voucherYears ?? 0),
    recordYears: Math.max(MIN_RETENTION.recordYears, s.retention?.recordYears ?? 0),
  };
}

/** The last day (YYYY-MM-DD) a document issued on `issueDate` must be kept: end of its year plus `years`. */
export function retainedUntil(issueDate: string, years: number): string {
  return `${Number(issueDate.slice(0, 4)) + years}-12-31`;
}

export interface DocumentSettings {
  language: DocumentLanguage;
  supplyDateRule: SupplyDateRule;
  replyToEmail: string | null;
  /** The merchant's own From address and its DNS verification (absent on settings saved before it existed: none). */
  sender?: SenderVerification | null;
}

/** What documents follow until the merchant says otherwise: English, date of supply = invoice date. */
export const DEFAULT_DOCUMENT_SETTINGS: DocumentSettings = {
  language: 'en',
  supplyDateRule: 'invoice_date',
  replyToEmail: null,
  sender: null,
};

/** The document settings in force (defaults for settings saved before they existed). */
export function documentSettingsOf(s: Pick<InvoicingSettings, 'documents'>): DocumentSettings {
  return { ...DEFAULT_DOCUMENT_SETTINGS, ...s.documents };
}

/** Hours a payment link of an invoice stays valid when the settings name none. */
export const DEFAULT_PAYMENT_LINK_HOURS = 336;

/** What an organization that never saved its settings gets. */
export function defaultInvoicingSettings(): InvoicingSettings {
  return {
    enabled: false,
    autoGenerateInvoice: false,
    companyName: null,
    companyAddress: null,
    companyEmail: null,
    companyPhone: null,
    bankIBAN: null,
    eInvoice: {
      enabled: false,
      allowedFormats: ['xrechnung', 'peppol', 'zugferd'],
      strictValidation: true,
      sellerPeppolRoutingAddress: null,
      emailFormat: null,
    },
    documents: { ...DEFAULT_DOCUMENT_SETTINGS },
    autoPaymentLinkExpiresInHours: DEFAULT_PAYMENT_LINK_HOURS,
    timeZone: 'UTC',
    invoiceNumberLayout: { ...DEFAULT_INVOICE_LAYOUT },
    creditNoteNumberLayout: { ...DEFAULT_CREDIT_NOTE_LAYOUT },
  };
}

/** Encrypts a secret value for the named settings field (the caller binds it to its tenant). */
export type Sealer = (plaintext: string, field: string) => SealedValue;

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`${field}: ${message}`, { field });
}

function checkLayout(field: string, layout: NumberingLayout): NumberingLayout {
  const problem = layoutAmbiguity(layout);
  if (problem) throw invalid(`${field}.resetPolicy`, problem);
  // The first number must fit the digits; later numbers widen rather than wrap (never a duplicate).
  if (String(layout.startNumber).length > layout.sequenceDigits) {
    throw invalid(
      `${field}.startNumber`,
      `${layout.startNumber} has more than sequenceDigits (${layout.sequenceDigits}) digits`,
    );
  }
  return layout;
}

/**
 * Applies a validated merge patch to the current settings and returns the next settings; throws
 * ValidationError naming the field when a value breaks a rule (IBAN checksum, unknown country,
 * a numbering layout that could repeat numbers). Pure apart from `seal`.
 */
export function applyInvoicingPatch(
  current: InvoicingSettings,
  patch: InvoicingSettingsPatch,
  seal: Sealer,
): InvoicingSettings {
  const next: InvoicingSettings = structuredClone(current);
  if (patch.enabled !== undefined) next.enabled = patch.enabled;
  if (patch.autoGenerateInvoice !== undefined) next.autoGenerateInvoice = patch.autoGenerateInvoice;
  if (patch.companyName !== undefined) next.companyName = patch.companyName;
  if (patch.companyEmail !== undefined) next.companyEmail = patch.companyEmail;
  if (patch.companyPhone !== undefined) next.companyPhone = patch.companyPhone;
  if (patch.companyAddress !== undefined) {
    if (patch.companyAddress && !isIsoCountry(patch.companyAddress.country)) {
      throw invalid(
        'companyAddress.country',
        `"${patch.companyAddress.country}" is not an ISO 3166-1 alpha-2 country code`,
      );
    }
    next.companyAddress = patch.companyAddress;
  }
  if (patch.bankIBAN !== undefined) {
    if (patch.bankIBAN === null) {
      next.bankIBAN = null;
    } else {
      const check = normalizeIban(patch.bankIBAN.plaintext);
      if (!check.ok) throw invalid('bankIBAN.plaintext', check.reason);
      next.bankIBAN = { sealed: seal(check.iban, 'bankIBAN'), masked: maskIban(check.iban) };
    }
  }
  if (patch.autoPaymentLinkExpiresInHours !== undefined)
    next.autoPaymentLinkExpiresInHours = patch.autoPaymentLinkExpiresInHours;
  if (patch.timeZone !== undefined) {
    const zone = canonicalTimeZone(patch.timeZone);
    if (!zone) throw invalid('timeZone', `"${patch.timeZone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
    next.timeZone = zone;
  }
  const e = patch.eInvoice;
  if (e) {
    if (e.enabled !== undefined) next.eInvoice.enabled = e.enabled;
    if (e.allowedFormats !== undefined) next.eInvoice.allowedFormats = [...new Set(e.allowedFormats)];
    if (e.strictValidation !== undefined) next.eInvoice.strictValidation = e.strictValidation;
    if (e.sellerPeppolRoutingAddress !== undefined) {
      const a = e.sellerPeppolRoutingAddress;
      next.eInvoice.sellerPeppolRoutingAddress = a
        ? { schemeId: a.schemeId, value: seal(a.value.plaintext, 'eInvoice.sellerPeppolRoutingAddress') }
        : null;
    }
    if (e.emailFormat !== undefined) next.eInvoice.emailFormat = e.emailFormat;
  }
  if (patch.documents) {
    const { senderEmail, ...rest } = patch.documents;
    const documents = { ...documentSettingsOf(next), ...rest };
    if (senderEmail !== undefined) documents.sender = nextSender(documents.sender ?? null, senderEmail);
    next.documents = documents;
  }
  const emailFormat = next.eInvoice.emailFormat ?? null;
  if (emailFormat && (patch.eInvoice?.emailFormat !== undefined || patch.eInvoice?.allowedFormats !== undefined)) {
    if (!next.eInvoice.allowedFormats.includes(emailFormat))
      throw invalid('eInvoice.emailFormat', `${emailFormat} is not in eInvoice.allowedFormats`);
  }
  if (patch.invoiceNumberLayout) {
    next.invoiceNumberLayout = checkLayout('invoiceNumberLayout', {
      ...next.invoiceNumberLayout,
      ...patch.invoiceNumberLayout,
    });
  }
  if (patch.creditNoteNumberLayout) {
    next.creditNoteNumberLayout = checkLayout('creditNoteNumberLayout', {
      ...next.creditNoteNumberLayout,
      ...patch.creditNoteNumberLayout,
    });
  }
  if (patch.retention) next.retention = { ...retentionOf(next), ...patch.retention };
  if (patch.datev) next.datev = applyDatevPatch(next.datev, patch.datev);
  if (sameLiterals(next.invoiceNumberLayout, next.creditNoteNumberLayout)) {
    const field = patch.creditNoteNumberLayout ? 'creditNoteNumberLayout.prefix' : 'invoiceNumberLayout.prefix';
    throw invalid(
      field,
      'invoice and credit note numbers need different prefix, infix or suffix, or one number could name both',
    );
  }
  return next;
}

/** Whether two layouts share prefix, infix and suffix (and so can produce the same number). */
export function sameLiterals(
  a: Pick<NumberingLayout, 'prefix' | 'infix' | 'suffix'>,
  b: Pick<NumberingLayout, 'prefix' | 'infix' | 'suffix'>,
): boolean {
  return a.prefix === b.prefix && a.infix === b.infix && a.suffix === b.suffix;
}
