import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { EInvoiceDocument, EInvoiceParty } from '@paymesh/contracts';
import { currencyDigits, decimal, documentSums, EXEMPTION, linePrice, percent, UNIT_CODE, vatGroups } from './amounts';

const NS = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  creditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

/** BT-24 and BT-23 of the two UBL profiles. */
export const UBL_PROFILES = {
  xrechnung: { customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0' },
  peppol: { customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0' },
} as const;
export const PEPPOL_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
export type UblProfile = keyof typeof UBL_PROFILES;

const cbc = (parent: XMLBuilder, name: string, text: string, attrs: Record<string, string> = {}) =>
  parent.ele(NS.cbc, `cbc:${name}`, attrs).txt(text).up();
const cac = (parent: XMLBuilder, name: string) => parent.ele(NS.cac, `cac:${name}`);

/** BT-34 / BT-49: the Peppol routing address, else (XRechnung) the e-mail address with scheme EM. */
function endpoint(party: EInvoiceParty, profile: UblProfile): { scheme: string; value: string } | null {
  if (party.endpoint) return { scheme: party.endpoint.schemeId, value: party.endpoint.value };
  if (profile === 'xrechnung' && party.email) return { scheme: 'EM', value: party.email };
  return null;
}

function partyElement(parent: XMLBuilder, party: EInvoiceParty, profile: UblProfile, seller: boolean): void {
  const p = cac(parent, 'Party');
  const ep = endpoint(party, profile);
  if (ep) cbc(p, 'EndpointID', ep.value, { schemeID: ep.scheme });
  if (party.address) {
    const a = cac(p, 'PostalAddress');
    cbc(a, 'StreetName', party.address.street);
    cbc(a, 'CityName', party.address.city);
    cbc(a, 'PostalZone', party.address.postalCode);
    cbc(cac(a, 'Country'), 'IdentificationCode', party.address.country);
  }
  if (party.vatId) {
    const t = cac(p, 'PartyTaxScheme');
    cbc(t, 'CompanyID', party.vatId);
    cbc(cac(t, 'TaxScheme'), 'ID', 'VAT');
  }
  cbc(cac(p, 'PartyLegalEntity'), 'RegistrationName', party.name);
  if (seller && (party.phone || party.email)) {
    const c = cac(p, 'Contact');
    cbc(c, 'Name', party.name);
    if (party.phone) cbc(c, 'Telephone', party.phone);
    if (party.email) cbc(c, 'ElectronicMail', party.email);
  }
}

/**
 * UBL 2.1 Invoice or CreditNote of an e-invoice document: XRechnung 3.0 (CIUS) or Peppol BIS
 * Billing 3.0. A credit note's amounts are positive (UBL CreditNote, type 381).
 */
export function buildUbl(doc: EInvoiceDocument, profile: UblProfile): string {
  const credit = doc.kind === 'credit_note';
  const digits = currencyDigits(doc.currency);
  const money = (minor: number) => decimal(minor, digits);
  const cur = { currencyID: doc.currency };
  const rootName = credit ? 'CreditNote' : 'Invoice';
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(credit ? NS.creditNote : NS.invoice, rootName, {
    'xmlns:cac': NS.cac,
    'xmlns:cbc': NS.cbc,
  });
  cbc(root, 'CustomizationID', UBL_PROFILES[profile].customizationId);
  cbc(root, 'ProfileID', PEPPOL_PROFILE_ID);
  cbc(root, 'ID', doc.number);
  cbc(root, 'IssueDate', doc.issueDate);
  if (!credit && doc.dueDate) cbc(root, 'DueDate', doc.dueDate);
  cbc(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode', credit ? '381' : '380');
  if (doc.note) cbc(root, 'Note', doc.note);
  cbc(root, 'DocumentCurrencyCode', doc.currency);
  cbc(root, 'BuyerReference', doc.buyerReference);
  if (doc.servicePeriod) {
    const per = cac(root, 'InvoicePeriod');
    cbc(per, 'StartDate', doc.servicePeriod.start);
    cbc(per, 'EndDate', doc.servicePeriod.end);
  }
  if (doc.precedingInvoice) {
    const ref = cac(cac(root, 'BillingReference'), 'InvoiceDocumentReference');
    cbc(ref, 'ID', doc.precedingInvoice.number);
    if (doc.precedingInvoice.issueDate) cbc(ref, 'IssueDate', doc.precedingInvoice.issueDate);
  }
  partyElement(cac(root, 'AccountingSupplierParty'), doc.seller, profile, true);
  partyElement(cac(root, 'AccountingCustomerParty'), doc.buyer, profile, false);

  const intraCommunity = doc.lines.some((l) => l.category === 'K');
  if (!doc.servicePeriod || intraCommunity) {
    const delivery = cac(root, 'Delivery');
    // The supply date: the tax point the invoice was taxed with (its issue date), unless a service period is stated.
    if (!doc.servicePeriod) cbc(delivery, 'ActualDeliveryDate', doc.issueDate);
    if (intraCommunity && doc.buyer.address)
      cbc(
        cac(cac(cac(delivery, 'DeliveryLocation'), 'Address'), 'Country'),
        'IdentificationCode',
        doc.buyer.address.country,
      );
  }
  const means = cac(root, 'PaymentMeans');
  if (doc.seller.iban) {
    cbc(means, 'PaymentMeansCode', '58');
    cbc(means, 'PaymentID', doc.number);
    cbc(cac(means, 'PayeeFinancialAccount'), 'ID', doc.seller.iban);
  } else {
    cbc(means, 'PaymentMeansCode', '1');
  }
  if (doc.paymentTerms) cbc(cac(root, 'PaymentTerms'), 'Note', doc.paymentTerms);

  const sums = documentSums(doc);
  const taxTotal = cac(root, 'TaxTotal');
  cbc(taxTotal, 'TaxAmount', money(sums.tax), cur);
  for (const g of vatGroups(doc.lines)) {
    const sub = cac(taxTotal, 'TaxSubtotal');
    cbc(sub, 'TaxableAmount', money(g.taxable), cur);
    cbc(sub, 'TaxAmount', money(g.tax), cur);
    const cat = cac(sub, 'TaxCategory');
    cbc(cat, 'ID', g.category);
    cbc(cat, 'Percent', percent(g.rate));
    const ex = EXEMPTION[g.category];
    if (ex) {
      cbc(cat, 'TaxExemptionReasonCode', ex.code);
      cbc(cat, 'TaxExemptionReason', ex.text);
    }
    cbc(cac(cat, 'TaxScheme'), 'ID', 'VAT');
  }
  const total = cac(root, 'LegalMonetaryTotal');
  cbc(total, 'LineExtensionAmount', money(sums.lineNet), cur);
  cbc(total, 'TaxExclusiveAmount', money(sums.lineNet), cur);
  cbc(total, 'TaxInclusiveAmount', money(sums.gross), cur);
  cbc(total, 'PayableAmount', money(sums.gross), cur);

  for (const line of doc.lines) {
    const l = cac(root, credit ? 'CreditNoteLine' : 'InvoiceLine');
    cbc(l, 'ID', line.id);
    cbc(l, credit ? 'CreditedQuantity' : 'InvoicedQuantity', String(line.quantity), { unitCode: UNIT_CODE });
    cbc(l, 'LineExtensionAmount', money(line.net), cur);
    const item = cac(l, 'Item');
    // A long text goes whole into the description (BT-154); the name (BT-153) is its first 200 characters.
    if (line.description.length > 200) cbc(item, 'Description', line.description);
    cbc(item, 'Name', line.description.slice(0, 200));
    const cat = cac(item, 'ClassifiedTaxCategory');
    cbc(cat, 'ID', line.category);
    cbc(cat, 'Percent', percent(line.taxRate));
    cbc(cac(cat, 'TaxScheme'), 'ID', 'VAT');
    const { price, baseQuantity } = linePrice(line);
    const pr = cac(l, 'Price');
    cbc(pr, 'PriceAmount', money(price), cur);
    if (baseQuantity !== null) cbc(pr, 'BaseQuantity', String(baseQuantity), { unitCode: UNIT_CODE });
  }
  return root.end({ prettyPrint: true });
}
