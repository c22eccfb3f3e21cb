import type {
  EInvoiceDocument,
  EInvoiceFormat,
  EInvoiceLine,
  InvoiceBuyerView,
  PostalAddress,
  TaxCalculation,
  TaxLineResult,
  VatCategory,
} from '@paymesh/contracts';

/**
 * E-invoice documents from issued invoices and credit notes (pure): the EN 16931 VAT category of
 * each line, the buyer reference, the parties in clear, and the readiness check that names every
 * missing value before anything is written.
 */

/** The seller as an e-invoice states it: the snapshot's identity plus payment and contact data. */
export interface EInvoiceSeller {
  companyName: string | null;
  address: PostalAddress | null;
  email: string | null;
  phone: string | null;
  vatId: string | null;
  iban: string | null;
  peppolRoutingAddress: { schemeId: string; value: string } | null;
}

/** What an e-invoice is built from, whatever the document (invoice or credit note). */
export interface EInvoiceSource {
  kind: 'invoice' | 'credit_note';
  number: string;
  issueDate: string;
  dueDate: string | null;
  paymentTermsDays: number | null;
  servicePeriod: { start: string; end: string } | null;
  currency: string;
  seller: EInvoiceSeller;
  buyer: InvoiceBuyerView;
  taxCalculation: TaxCalculation;
  totals: { net: number; tax: number; gross: number };
  /** Credit notes: the invoice credited and why. */
  precedingInvoice: { number: string; issueDate: string | null } | null;
  reason: string | null;
}

/** One missing or unusable value: the field to fix and why it is needed. */
export interface ReadinessProblem {
  field: string;
  message: string;
}

/** UNCL5305 category of a line from the tax engine's decision and rate. */
export function vatCategoryOf(line: Pick<TaxLineResult, 'decision' | 'taxRate'>): VatCategory | null {
  switch (line.decision) {
    case 'reverse_charge':
      return 'AE';
    case 'intra_community_supply':
      return 'K';
    case 'export':
      return 'G';
    case 'seller_not_configured':
      return null;
    default:
      return line.taxRate > 0 ? 'S' : 'Z';
  }
}

/** A VAT ID as EN 16931 wants it: with its ISO country prefix (Greece: EL). */
export function vatIdentifier(taxId: string | null, taxIdType: string | null, country: string | null): string | null {
  if (!taxId || (taxIdType !== null && taxIdType !== 'vat')) return null;
  const compact = taxId.replace(/[\s.-]/g, '').toUpperCase();
  if (/^[A-Z]{2}/.test(compact)) return compact;
  if (!country) return compact;
  return `${country === 'GR' ? 'EL' : country}${compact}`;
}

/** Decimals of a currency's minor unit (EUR 2, JPY 0). */
function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * What the format needs of the seller (the organization's settings) and they lack, each naming the
 * settings field to set (`invoicing.*` as in `PUT /organizations/settings/invoicing`, `tax.*` as in
 * `/tax`). Part of {@link einvoiceReadiness}; the invoicing settings show it before anything is issued.
 */
export function sellerReadiness(
  s: { readonly [F in keyof EInvoiceSeller]: unknown },
  format: EInvoiceFormat,
  kind: 'invoice' | 'credit_note',
): ReadinessProblem[] {
  const problems: ReadinessProblem[] = [];
  const need = (ok: unknown, field: string, message: string) => {
    if (!ok) problems.push({ field, message });
  };
  need(s.companyName, 'invoicing.companyName', 'seller name (BT-27)');
  need(s.address, 'invoicing.companyAddress', 'seller postal address (BG-5)');
  need(s.vatId, 'tax.vatId', 'seller VAT ID (BT-31)');
  if (kind === 'invoice') need(s.iban, 'invoicing.bankIBAN', 'seller IBAN for the payment instructions (BT-84)');
  if (format === 'xrechnung') {
    need(s.email, 'invoicing.companyEmail', 'seller contact e-mail (XRechnung BT-43)');
    need(s.phone, 'invoicing.companyPhone', 'seller contact telephone (XRechnung BT-42)');
  }
  if (format === 'peppol')
    need(s.peppolRoutingAddress, 'invoicing.eInvoice.sellerPeppolRoutingAddress', 'seller Peppol routing address');
  return problems;
}

/**
 * What the format needs and the document or the settings lack, each naming the field to set
 * (settings fields as in `PUT /organizations/settings/invoicing` and `/tax`, buyer fields as in
 * the client / a correction). Empty: ready.
 */
export function einvoiceReadiness(src: EInvoiceSource, format: EInvoiceFormat): ReadinessProblem[] {
  const problems: ReadinessProblem[] = sellerReadiness(src.seller, format, src.kind);
  const need = (ok: unknown, field: string, message: string) => {
    if (!ok) problems.push({ field, message });
  };
  need(src.buyer.address, 'buyer.address', 'buyer postal address');
  if (format === 'xrechnung') {
    need(
      src.buyer.email || src.buyer.peppolRoutingAddress,
      'buyer.email',
      'buyer electronic address: e-mail or Peppol routing address (XRechnung BT-49)',
    );
  }
  if (format === 'peppol') {
    need(src.buyer.peppolRoutingAddress, 'buyer.peppolRoutingAddress', 'buyer Peppol routing address');
  }
  if (currencyDigits(src.currency) > 2)
    problems.push({
      field: 'currency',
      message: `${src.currency} has more than 2 decimals; e-invoice amounts have at most 2`,
    });
  const lines = src.taxCalculation.lines;
  if (lines.some((l) => vatCategoryOf(l) === null)) {
    problems.push({
      field: 'tax.homeCountry',
      message: 'no VAT was calculated (the seller had no home country when the document was taxed)',
    });
  }
  const buyerVat = vatIdentifier(
    src.buyer.taxId,
    src.buyer.taxIdType,
    src.buyer.taxCountry ?? src.buyer.address?.country ?? null,
  );
  if (lines.some((l) => l.decision === 'reverse_charge' || l.decision === 'intra_community_supply')) {
    need(buyerVat, 'buyer.taxId', 'buyer VAT ID (reverse charge / intra-Community supply)');
  }
  return problems;
}

/** Payment terms text (BT-20). */
export function paymentTermsText(
  src: Pick<EInvoiceSource, 'kind' | 'dueDate' | 'paymentTermsDays' | 'precedingInvoice'>,
): string {
  if (src.kind === 'credit_note')
    return src.precedingInvoice ? `Credits invoice ${src.precedingInvoice.number}.` : 'Credit note.';
  if (src.paymentTermsDays !== null && src.dueDate)
    return `Payable within ${src.paymentTermsDays} days, by ${src.dueDate}.`;
  if (src.dueDate) return `Payable by ${src.dueDate}.`;
  if (src.paymentTermsDays !== null) return `Payable within ${src.paymentTermsDays} days of the invoice date.`;
  return 'Payable on receipt.';
}

/**
 * The e-invoice document of a ready source (call {@link einvoiceReadiness} first). BT-10 is the
 * buyer's Leitweg-ID (routing scheme 0204) when it has one, else the document number.
 */
export function einvoiceDocumentOf(src: EInvoiceSource): EInvoiceDocument {
  const b = src.buyer;
  const lines: EInvoiceLine[] = src.taxCalculation.lines.map((l, i) => ({
    id: String(i + 1),
    description: l.name.slice(0, 500),
    quantity: l.quantity,
    net: l.net,
    tax: l.tax,
    taxRate: l.taxRate,
    category: vatCategoryOf(l) ?? 'S',
  }));
  const leitwegId = b.peppolRoutingAddress?.schemeId === '0204' ? b.peppolRoutingAddress.value : null;
  return {
    kind: src.kind,
    number: src.number,
    issueDate: src.issueDate,
    dueDate: src.dueDate,
    servicePeriod: src.servicePeriod,
    currency: src.currency,
    buyerReference: leitwegId ?? src.number,
    precedingInvoice: src.precedingInvoice,
    seller: {
      name: src.seller.companyName ?? '',
      address: src.seller.address,
      email: src.seller.email,
      phone: src.seller.phone,
      vatId: vatIdentifier(src.seller.vatId, 'vat', src.seller.address?.country ?? null),
      endpoint: src.seller.peppolRoutingAddress,
      iban: src.seller.iban,
    },
    buyer: {
      name: b.name,
      address: b.address,
      email: b.email,
      phone: null,
      vatId: vatIdentifier(b.taxId, b.taxIdType, b.taxCountry ?? b.address?.country ?? null),
      endpoint: b.peppolRoutingAddress,
    },
    lines,
    totals: src.totals,
    paymentTerms: paymentTermsText(src),
    note: src.reason,
  };
}

/** File name of a download (`INV-2027-0001-xrechnung.xml`): the number with unsafe characters replaced. */
export function einvoiceFileName(number: string, format: EInvoiceFormat, output: 'xml' | 'pdf'): string {
  return `${number.replace(/[^A-Za-z0-9._-]/g, '_')}-${format}.${output}`;
}
