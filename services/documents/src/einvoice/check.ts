import { create } from 'xmlbuilder2';
import type {
  EInvoiceDocument,
  EInvoiceFinding,
  EInvoiceFormat,
  EInvoiceReport,
  VatCategory,
} from '@paymesh/contracts';
import { currencyDigits, documentSums, vatGroups } from './amounts';

/** Name and version of the in-process checker, written into every report. */
export const CHECKER =
  'paymesh-einvoice-check/1.0 (EN 16931, XRechnung 3.0, Peppol BIS 3.0 business rules for the fields emitted)';

/** EAS codes (Peppol code list, subset a German merchant meets) accepted as routing schemes. */
const EAS = new Set([
  '0002',
  '0007',
  '0009',
  '0037',
  '0060',
  '0088',
  '0096',
  '0097',
  '0106',
  '0135',
  '0142',
  '0151',
  '0183',
  '0184',
  '0188',
  '0190',
  '0191',
  '0192',
  '0195',
  '0196',
  '0198',
  '0199',
  '0200',
  '0201',
  '0202',
  '0204',
  '0208',
  '0209',
  '0210',
  '0211',
  '0212',
  '0213',
  '0215',
  '0216',
  '0221',
  '0230',
  '9901',
  '9910',
  '9913',
  '9914',
  '9915',
  '9918',
  '9919',
  '9920',
  '9922',
  '9923',
  '9924',
  '9925',
  '9926',
  '9927',
  '9928',
  '9929',
  '9930',
  '9931',
  '9932',
  '9933',
  '9934',
  '9935',
  '9936',
  '9937',
  '9938',
  '9939',
  '9940',
  '9941',
  '9942',
  '9943',
  '9944',
  '9945',
  '9946',
  '9947',
  '9948',
  '9949',
  '9950',
  '9951',
  '9952',
  '9953',
  '9957',
  '9959',
]);

const ZERO_RATED: readonly VatCategory[] = ['Z', 'AE', 'K', 'G'];

/**
 * The production validation of a generated e-invoice: the EN 16931 business rules (and the
 * XRechnung / Peppol rules of the chosen format) that concern the fields the platform writes,
 * checked on the document the XML was written from, plus a well-formedness and BT-24 check of the
 * XML itself. Rule identifiers are the official ones, so a report reads like the official
 * validators'. The official Schematron artefacts run in the test suite (see docs/adr/0045-e-invoices.md).
 */
export function checkEInvoice(
  doc: EInvoiceDocument,
  format: EInvoiceFormat,
  xml: string,
  specification: string,
  now: Date,
): EInvoiceReport {
  const findings: EInvoiceFinding[] = [];
  const error = (rule: string, field: string | null, message: string) =>
    findings.push({ rule, severity: 'error', field, message });
  const warning = (rule: string, field: string | null, message: string) =>
    findings.push({ rule, severity: 'warning', field, message });
  const credit = doc.kind === 'credit_note';

  // The XML itself: well-formed, and it states the specification it claims.
  let documentType = credit
    ? format === 'zugferd'
      ? 'CrossIndustryInvoice 381'
      : 'CreditNote'
    : format === 'zugferd'
      ? 'CrossIndustryInvoice 380'
      : 'Invoice';
  try {
    const parsed = create(xml);
    const rootName = parsed.root().node.nodeName.split(':').pop() ?? '';
    documentType = format === 'zugferd' ? `${rootName} ${credit ? 381 : 380}` : rootName;
    if (!xml.includes(`>${specification}<`))
      error('BR-01', 'BT-24', `the XML does not state the specification identifier ${specification}`);
  } catch (err) {
    error('XML', null, `the generated XML is not well-formed: ${(err as Error).message}`);
  }

  if (currencyDigits(doc.currency) > 2)
    error('BR-DEC-23', 'BT-5', `${doc.currency} has more than 2 decimals; EN 16931 amounts have at most 2`);
  if (!doc.seller.name) error('BR-06', 'BT-27', 'seller name missing');
  if (!doc.buyer.name) error('BR-07', 'BT-44', 'buyer name missing');
  if (!doc.seller.address) error('BR-08', 'BG-5', 'seller postal address missing');
  if (!doc.buyer.address) error('BR-10', 'BG-8', 'buyer postal address missing');
  if (doc.lines.length === 0) error('BR-16', 'BG-25', 'no invoice line');
  for (const [who, vat, bt] of [
    ['seller', doc.seller.vatId, 'BT-31'],
    ['buyer', doc.buyer.vatId, 'BT-48'],
  ] as const) {
    if (vat && !/^[A-Z]{2}[A-Za-z0-9+*.]{2,}$/.test(vat))
      error('BR-CO-09', bt, `${who} VAT identifier ${vat} has no ISO 3166 country prefix`);
  }

  // Amounts: the totals the XML states are the sums of its lines, and equal the issued totals.
  const sums = documentSums(doc);
  if (sums.lineNet !== doc.totals.net)
    error(
      'BR-CO-10',
      'BT-106',
      `sum of line net amounts ${sums.lineNet} differs from the document's net total ${doc.totals.net}`,
    );
  if (sums.tax !== doc.totals.tax)
    error(
      'BR-CO-14',
      'BT-110',
      `sum of VAT amounts ${sums.tax} differs from the document's tax total ${doc.totals.tax}`,
    );
  if (sums.gross !== doc.totals.gross)
    error(
      'BR-CO-15',
      'BT-112',
      `net ${sums.lineNet} + VAT ${sums.tax} differs from the document's gross total ${doc.totals.gross}`,
    );
  const unit = 10 ** currencyDigits(doc.currency);
  for (const g of vatGroups(doc.lines)) {
    const expected = (g.taxable * g.rate) / 100;
    if (Math.abs(g.tax - expected) > unit)
      error(
        'BR-CO-17',
        'BT-117',
        `VAT of category ${g.category} ${g.rate} % is ${g.tax}, expected ${Math.round(expected)} (taxable ${g.taxable})`,
      );
    if (g.category === 'S' && g.rate <= 0) error('BR-S-05', 'BT-119', 'standard-rated VAT category with a rate of 0');
    if (ZERO_RATED.includes(g.category) && g.rate !== 0)
      error(`BR-${g.category === 'K' ? 'IC' : g.category}-05`, 'BT-119', `VAT category ${g.category} must have rate 0`);
    if (!doc.seller.vatId)
      error(
        `BR-${g.category === 'K' ? 'IC' : g.category}-02`,
        'BT-31',
        `VAT category ${g.category} needs the seller's VAT identifier`,
      );
    if ((g.category === 'AE' || g.category === 'K') && !doc.buyer.vatId)
      error(
        `BR-${g.category === 'K' ? 'IC' : 'AE'}-02`,
        'BT-48',
        `VAT category ${g.category} needs the buyer's VAT identifier`,
      );
    if (g.category === 'K' && !doc.buyer.address)
      error('BR-IC-12', 'BT-80', 'intra-Community supply needs the deliver-to country');
  }
  if (!credit && sums.gross > 0 && !doc.dueDate && !doc.paymentTerms)
    error('BR-CO-25', 'BT-9', 'an amount is due: a due date or payment terms are required');
  if (credit && !doc.precedingInvoice) warning('BR-55', 'BT-25', 'the credited invoice is not referenced');

  if (format === 'xrechnung') {
    if (!credit && !doc.seller.iban) error('BR-DE-1', 'BT-84', 'payment instructions need the seller IBAN');
    if (!doc.seller.phone) error('BR-DE-6', 'BT-42', 'seller contact telephone missing');
    if (!doc.seller.email) error('BR-DE-7', 'BT-43', 'seller contact e-mail missing');
    if (doc.seller.address && (!doc.seller.address.city || !doc.seller.address.postalCode))
      error('BR-DE-3', 'BT-37', 'seller city or post code missing');
    if (doc.buyer.address && (!doc.buyer.address.city || !doc.buyer.address.postalCode))
      error('BR-DE-8', 'BT-52', 'buyer city or post code missing');
    if (!doc.buyerReference) error('BR-DE-15', 'BT-10', 'buyer reference missing');
    if (!doc.seller.endpoint && !doc.seller.email)
      error('PEPPOL-EN16931-R020', 'BT-34', 'seller electronic address missing');
    if (!doc.buyer.endpoint && !doc.buyer.email)
      error('PEPPOL-EN16931-R010', 'BT-49', 'buyer electronic address missing');
  }
  if (format === 'peppol') {
    if (!doc.seller.endpoint) error('PEPPOL-EN16931-R020', 'BT-34', 'seller Peppol routing address missing');
    if (!doc.buyer.endpoint) error('PEPPOL-EN16931-R010', 'BT-49', 'buyer Peppol routing address missing');
    for (const [who, ep, bt] of [
      ['seller', doc.seller.endpoint, 'BT-34-1'],
      ['buyer', doc.buyer.endpoint, 'BT-49-1'],
    ] as const) {
      if (ep && !EAS.has(ep.schemeId))
        error('PEPPOL-EN16931-CL008', bt, `${who} routing scheme ${ep.schemeId} is not in the EAS code list`);
    }
  }
  if (!doc.seller.iban && !credit) warning('BR-50', 'BT-84', 'no payee account: the buyer is told no way to pay');

  const errors = findings.filter((f) => f.severity === 'error').length;
  return {
    format,
    syntax: format === 'zugferd' ? 'cii' : 'ubl',
    documentType,
    specification,
    validator: CHECKER,
    valid: errors === 0,
    errors,
    warnings: findings.length - errors,
    findings,
    checkedAt: now.toISOString(),
  };
}
