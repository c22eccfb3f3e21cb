import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { EInvoiceDocument, EInvoiceParty } from '@paymesh/contracts';
import { currencyDigits, decimal, documentSums, EXEMPTION, linePrice, percent, UNIT_CODE, vatGroups } from './amounts';

const NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** BT-24 of Factur-X / ZUGFeRD profile EN 16931 (COMFORT). */
export const FACTURX_EN16931_ID = 'urn:cen.eu:en16931:2017';

const ram = (parent: XMLBuilder, name: string, text?: string, attrs: Record<string, string> = {}) => {
  const el = parent.ele(NS.ram, `ram:${name}`, attrs);
  return text === undefined ? el : el.txt(text).up();
};
const yyyymmdd = (day: string) => day.replaceAll('-', '');
const dateTime = (parent: XMLBuilder, name: string, day: string, ns: 'udt' | 'qdt' = 'udt') =>
  ram(parent, name).ele(NS[ns], `${ns}:DateTimeString`, { format: '102' }).txt(yyyymmdd(day)).up().up();

function tradeParty(parent: XMLBuilder, name: string, party: EInvoiceParty, seller: boolean): void {
  const p = ram(parent, name);
  ram(p, 'Name', party.name);
  if (seller && (party.phone || party.email)) {
    const c = ram(p, 'DefinedTradeContact');
    ram(c, 'PersonName', party.name);
    if (party.phone) ram(ram(c, 'TelephoneUniversalCommunication'), 'CompleteNumber', party.phone);
    if (party.email) ram(ram(c, 'EmailURIUniversalCommunication'), 'URIID', party.email);
  }
  if (party.address) {
    const a = ram(p, 'PostalTradeAddress');
    ram(a, 'PostcodeCode', party.address.postalCode);
    ram(a, 'LineOne', party.address.street);
    ram(a, 'CityName', party.address.city);
    ram(a, 'CountryID', party.address.country);
  }
  if (party.endpoint)
    ram(ram(p, 'URIUniversalCommunication'), 'URIID', party.endpoint.value, { schemeID: party.endpoint.schemeId });
  else if (party.email) ram(ram(p, 'URIUniversalCommunication'), 'URIID', party.email, { schemeID: 'EM' });
  if (party.vatId) ram(ram(p, 'SpecifiedTaxRegistration'), 'ID', party.vatId, { schemeID: 'VA' });
}

/**
 * UN/CEFACT CII D16B CrossIndustryInvoice of an e-invoice document, Factur-X / ZUGFeRD profile
 * EN 16931: type 380 for an invoice, 381 for a credit note (positive amounts, BT-25 preceding invoice).
 */
export function buildCii(doc: EInvoiceDocument): string {
  const credit = doc.kind === 'credit_note';
  const digits = currencyDigits(doc.currency);
  const money = (minor: number) => decimal(minor, digits);
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS.rsm, 'rsm:CrossIndustryInvoice', {
    'xmlns:rsm': NS.rsm,
    'xmlns:ram': NS.ram,
    'xmlns:qdt': NS.qdt,
    'xmlns:udt': NS.udt,
  });
  const ctx = root.ele(NS.rsm, 'rsm:ExchangedDocumentContext');
  ram(ram(ctx, 'GuidelineSpecifiedDocumentContextParameter'), 'ID', FACTURX_EN16931_ID);
  const head = root.ele(NS.rsm, 'rsm:ExchangedDocument');
  ram(head, 'ID', doc.number);
  ram(head, 'TypeCode', credit ? '381' : '380');
  dateTime(head, 'IssueDateTime', doc.issueDate);
  if (doc.note) ram(ram(head, 'IncludedNote'), 'Content', doc.note);

  const tx = root.ele(NS.rsm, 'rsm:SupplyChainTradeTransaction');
  for (const line of doc.lines) {
    const item = ram(tx, 'IncludedSupplyChainTradeLineItem');
    ram(ram(item, 'AssociatedDocumentLineDocument'), 'LineID', line.id);
    const product = ram(item, 'SpecifiedTradeProduct');
    ram(product, 'Name', line.description.slice(0, 200));
    if (line.description.length > 200) ram(product, 'Description', line.description);
    const { price, baseQuantity } = linePrice(line);
    const net = ram(ram(item, 'SpecifiedLineTradeAgreement'), 'NetPriceProductTradePrice');
    ram(net, 'ChargeAmount', money(price));
    if (baseQuantity !== null) ram(net, 'BasisQuantity', String(baseQuantity), { unitCode: UNIT_CODE });
    ram(ram(item, 'SpecifiedLineTradeDelivery'), 'BilledQuantity', String(line.quantity), { unitCode: UNIT_CODE });
    const settle = ram(item, 'SpecifiedLineTradeSettlement');
    const tax = ram(settle, 'ApplicableTradeTax');
    ram(tax, 'TypeCode', 'VAT');
    ram(tax, 'CategoryCode', line.category);
    ram(tax, 'RateApplicablePercent', percent(line.taxRate));
    ram(ram(settle, 'SpecifiedTradeSettlementLineMonetarySummation'), 'LineTotalAmount', money(line.net));
  }

  const agreement = ram(tx, 'ApplicableHeaderTradeAgreement');
  ram(agreement, 'BuyerReference', doc.buyerReference);
  tradeParty(agreement, 'SellerTradeParty', doc.seller, true);
  tradeParty(agreement, 'BuyerTradeParty', doc.buyer, false);

  const delivery = ram(tx, 'ApplicableHeaderTradeDelivery');
  if (doc.lines.some((l) => l.category === 'K') && doc.buyer.address) {
    ram(ram(ram(delivery, 'ShipToTradeParty'), 'PostalTradeAddress'), 'CountryID', doc.buyer.address.country);
  }
  if (!doc.servicePeriod)
    dateTime(ram(delivery, 'ActualDeliverySupplyChainEvent'), 'OccurrenceDateTime', doc.issueDate);

  const settlement = ram(tx, 'ApplicableHeaderTradeSettlement');
  if (doc.seller.iban) ram(settlement, 'PaymentReference', doc.number);
  ram(settlement, 'InvoiceCurrencyCode', doc.currency);
  const means = ram(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  if (doc.seller.iban) {
    ram(means, 'TypeCode', '58');
    ram(ram(means, 'PayeePartyCreditorFinancialAccount'), 'IBANID', doc.seller.iban);
  } else {
    ram(means, 'TypeCode', '1');
  }
  for (const g of vatGroups(doc.lines)) {
    const t = ram(settlement, 'ApplicableTradeTax');
    const ex = EXEMPTION[g.category];
    ram(t, 'CalculatedAmount', money(g.tax));
    ram(t, 'TypeCode', 'VAT');
    if (ex) ram(t, 'ExemptionReason', ex.text);
    ram(t, 'BasisAmount', money(g.taxable));
    ram(t, 'CategoryCode', g.category);
    if (ex) ram(t, 'ExemptionReasonCode', ex.code);
    ram(t, 'RateApplicablePercent', percent(g.rate));
  }
  if (doc.servicePeriod) {
    const per = ram(settlement, 'BillingSpecifiedPeriod');
    dateTime(per, 'StartDateTime', doc.servicePeriod.start);
    dateTime(per, 'EndDateTime', doc.servicePeriod.end);
  }
  if (doc.paymentTerms || (!credit && doc.dueDate)) {
    const terms = ram(settlement, 'SpecifiedTradePaymentTerms');
    if (doc.paymentTerms) ram(terms, 'Description', doc.paymentTerms);
    if (!credit && doc.dueDate) dateTime(terms, 'DueDateDateTime', doc.dueDate);
  }
  const sums = documentSums(doc);
  const total = ram(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  ram(total, 'LineTotalAmount', money(sums.lineNet));
  ram(total, 'TaxBasisTotalAmount', money(sums.lineNet));
  ram(total, 'TaxTotalAmount', money(sums.tax), { currencyID: doc.currency });
  ram(total, 'GrandTotalAmount', money(sums.gross));
  ram(total, 'DuePayableAmount', money(sums.gross));
  if (doc.precedingInvoice) {
    const ref = ram(settlement, 'InvoiceReferencedDocument');
    ram(ref, 'IssuerAssignedID', doc.precedingInvoice.number);
    if (doc.precedingInvoice.issueDate) dateTime(ref, 'FormattedIssueDateTime', doc.precedingInvoice.issueDate, 'qdt');
  }
  return root.end({ prettyPrint: true });
}
