import { describe, expect, it } from 'vitest';
import { DEV_SECRETS_KEYRING, SecretBox } from '@paymesh/core';
import { documentView, taxCalculation, type TaxCalculation } from '@paymesh/contracts';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { defaultInvoicingSettings } from '../domain/invoicing-settings';
import { creditNoteDocumentView, issuedInvoiceView, proformaView } from './document-view';
import { sealBuyer } from './invoice-sealing';
import { settingsAad } from './invoicing-settings';
import { vatIdCheckOf } from '../../test/tax-fixture';

const secrets = new SecretBox(DEV_SECRETS_KEYRING);
const key = { organizationId: 'a'.repeat(24), mode: 'live' as const };
const IBAN = 'AT611904300234573201';
const sealedIban = secrets.seal(IBAN, settingsAad(key, 'bankIBAN'));
const buyer = {
  clientId: 'c'.repeat(24),
  name: 'Nordlicht Software GmbH',
  email: 'buchhaltung@nordlicht.example',
  address: { street: 'Hafenstraße 3', city: 'Hamburg', postalCode: '20457', country: 'DE' },
  taxId: 'DE321571435',
  taxIdType: 'vat',
  taxCountry: 'DE',
  peppolRoutingAddress: null,
};
const seller = {
  companyName: 'Alpenblick Handels GmbH',
  address: { street: 'Mariahilfer Straße 10', city: 'Wien', postalCode: '1070', country: 'AT' },
  email: 'billing@alpenblick.example',
  vatId: 'ATU31989140',
  homeCountry: 'AT',
  bankIBANMasked: 'AT61 **** **** **** 3201',
  bankIBANSealed: sealedIban,
};
const items = [
  {
    description: 'Platform licence, October (a description longer than the engine keeps)',
    quantity: 2,
    unitPrice: 12_500,
    amountType: 'net' as const,
    itemType: 'service' as const,
  },
];
const calc: TaxCalculation = taxCalculation.parse({
  currency: 'EUR',
  taxIncluded: false,
  totalNet: 25_000,
  totalTax: 0,
  totalGross: 25_000,
  taxBreakdown: [{ taxRate: 0, taxRateCode: 'REVERSE_CHARGE', taxableBase: 25_000, taxAmount: 0 }],
  lines: [
    {
      index: 0,
      name: 'Platform licence',
      itemType: 'service',
      category: null,
      quantity: 2,
      unitPrice: 12_500,
      net: 25_000,
      tax: 0,
      gross: 25_000,
      taxRate: 0,
      taxRateCode: 'REVERSE_CHARGE',
      taxCountry: 'DE',
      rateType: null,
      decision: 'reverse_charge',
      reason: 'reverse charge',
      rateId: null,
      rateVersion: null,
      ruleId: null,
    },
  ],
  buyer: {
    country: 'DE',
    postcode: '20457',
    type: 'business',
    vatIdValidation: 'vies',
    vatIdCheck: vatIdCheckOf({ vatId: 'DE321571435', status: 'valid', source: 'vies' }),
    vatIdTreatment: 'VIES confirmed',
  },
  seller: { homeCountry: 'AT', ossEnabled: false, ossThresholdExceeded: false },
  settings: { priceMode: 'net', rounding: { level: 'per_line', method: 'half_up' } },
  date: '2026-11-02',
  calculatedAt: '2026-11-02T10:00:00.000Z',
  engineVersion: 'test',
});

const defaults = defaultInvoicingSettings();

function issued(over: Partial<InvoiceDoc> = {}): InvoiceDoc {
  return {
    id: 'd'.repeat(24),
    version: 3,
    organizationId: key.organizationId,
    mode: 'live',
    status: 'issued',
    number: 'INV-2026/0042',
    siteId: 'e'.repeat(24),
    clientId: buyer.clientId,
    currency: 'EUR',
    items,
    issueDate: '2026-11-02',
    dueDate: '2026-11-16',
    paymentTermsDays: 14,
    servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
    notes: null,
    taxCalculation: calc,
    totals: { net: 25_000, tax: 0, gross: 25_000 },
    amountPaid: 0,
    payments: [],
    transactionId: null,
    sourceTransactionId: null,
    snapshot: {
      number: 'INV-2026/0042',
      issueDate: '2026-11-02',
      dueDate: '2026-11-16',
      servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
      currency: 'EUR',
      seller,
      buyer: sealBuyer(secrets, key, buyer),
      lines: items,
      taxCalculation: calc,
      totals: { net: 25_000, tax: 0, gross: 25_000 },
      settings: {
        numberLayout: defaults.invoiceNumberLayout,
        timeZone: defaults.timeZone,
        priceMode: calc.settings.priceMode,
        rounding: calc.settings.rounding,
      },
      issuedAt: '2026-11-02T10:00:00.000Z',
    },
    corrections: [],
    creditNoteIds: [],
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-02T10:00:00.000Z',
    issuedAt: '2026-11-02T10:00:00.000Z',
    voidedAt: null,
    voidReason: null,
    ...over,
  };
}

const site = { name: 'Alpenblick Store', primaryColor: '#0a6e4f' };

describe('document views', () => {
  it('prints an issued invoice from its snapshot: opened buyer VAT ID, the full IBAN, full descriptions, branding', () => {
    const { view, snapshotVersion } = issuedInvoiceView(secrets, key, issued(), site);
    expect(documentView.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      kind: 'invoice',
      number: 'INV-2026/0042',
      seller: { name: 'Alpenblick Handels GmbH', vatId: 'ATU31989140', iban: IBAN },
      buyer: { name: 'Nordlicht Software GmbH', vatId: 'DE321571435' },
      servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
      totals: { net: 25_000, tax: 0, gross: 25_000 },
      branding: { name: 'Alpenblick Store', primaryColor: '#0a6e4f' },
    });
    expect(view.lines[0]).toMatchObject({ description: items[0]!.description, decision: 'reverse_charge' });
    expect(snapshotVersion).toMatch(/^i1793613600000c0-[A-Za-z0-9_-]{22}$/);
    // Deterministic: the same document gives the same version.
    expect(issuedInvoiceView(secrets, key, issued(), site).snapshotVersion).toBe(snapshotVersion);
  });

  it('gives a new snapshot version when something printed changes, and only then', () => {
    const base = issuedInvoiceView(secrets, key, issued(), site).snapshotVersion;
    expect(
      issuedInvoiceView(secrets, key, issued({ amountPaid: 25_000, status: 'paid', version: 9 }), site).snapshotVersion,
    ).toBe(base);
    const doc = issued();
    const corrected: InvoiceDoc = {
      ...doc,
      snapshot: { ...doc.snapshot!, buyer: sealBuyer(secrets, key, { ...buyer, name: 'Nordlicht Systems GmbH' }) },
      corrections: [{ at: '2026-11-03T00:00:00.000Z', actor: null, reason: 'renamed', changes: {}, previous: {} }],
    };
    expect(issuedInvoiceView(secrets, key, corrected, site).snapshotVersion).toMatch(/^i1793613600000c1-/);
    expect(issuedInvoiceView(secrets, key, issued({ notes: 'Thanks' }), site).snapshotVersion).not.toBe(base);
    expect(issuedInvoiceView(secrets, key, issued(), { ...site, primaryColor: '#000000' }).snapshotVersion).not.toBe(
      base,
    );
  });

  it('prints the IBAN of the settings when it was set after the invoice was issued', () => {
    const doc = issued();
    const withoutIban = {
      ...doc,
      snapshot: { ...doc.snapshot!, seller: { ...doc.snapshot!.seller, bankIBANSealed: null } },
    };
    expect(issuedInvoiceView(secrets, key, withoutIban, site).view.seller.iban).toBeNull();
    const later = issuedInvoiceView(secrets, key, withoutIban, site, sealedIban);
    expect(later.view.seller.iban).toBe(IBAN);
    expect(later.snapshotVersion).not.toBe(issuedInvoiceView(secrets, key, withoutIban, site).snapshotVersion);
    // The snapshot's own IBAN wins over a later change of the settings.
    const other = secrets.seal('AT611904300234573201', settingsAad(key, 'bankIBAN'));
    expect(issuedInvoiceView(secrets, key, doc, site, other).view.seller.iban).toBe(IBAN);
  });

  it('prints a void invoice with its notice and without the IBAN', () => {
    const { view } = issuedInvoiceView(
      secrets,
      key,
      issued({ status: 'void', voidedAt: '2026-11-05T09:00:00.000Z', voidReason: 'ordered twice' }),
      null,
    );
    expect(view.seller.iban).toBeNull();
    expect(view.remarks).toContain('voided on 2026-11-05 (ordered twice)');
    expect(view.branding).toBeNull();
  });

  it('prints a draft as pro forma with the current seller and the client, dated today in the organization time zone', () => {
    const settings = {
      ...defaultInvoicingSettings(),
      companyName: 'Alpenblick Handels GmbH',
      timeZone: 'Pacific/Auckland',
      bankIBAN: { sealed: sealedIban, masked: 'x' },
    };
    const draft = issued({ status: 'draft', number: null, snapshot: null, issueDate: null, dueDate: null });
    const { view, snapshotVersion } = proformaView(secrets, key, draft, {
      settings,
      sellerVatId: 'ATU31989140',
      buyer,
      now: new Date('2026-11-02T20:00:00Z'),
      site: null,
    });
    expect(documentView.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      kind: 'proforma',
      number: 'PROFORMA-DDDDDDDD',
      issueDate: '2026-11-03',
      dueDate: '2026-11-17',
      seller: { iban: IBAN, vatId: 'ATU31989140' },
    });
    expect(snapshotVersion).toMatch(/^d3-/);
  });

  it('prints a credit note with the invoice it credits and why, without IBAN', () => {
    const note: CreditNoteDoc = {
      id: 'f'.repeat(24),
      version: 1,
      organizationId: key.organizationId,
      mode: 'live',
      number: 'CN-2026/0007',
      invoiceId: 'd'.repeat(24),
      invoiceNumber: 'INV-2026/0042',
      kind: 'void',
      sourceKey: 'void',
      reason: 'ordered twice',
      siteId: 'e'.repeat(24),
      clientId: buyer.clientId,
      currency: 'EUR',
      issueDate: '2026-11-05',
      seller,
      buyer: sealBuyer(secrets, key, buyer),
      lines: items,
      taxCalculation: calc,
      totals: { net: 25_000, tax: 0, gross: 25_000 },
      transactionId: null,
      createdAt: '2026-11-05T09:00:00.000Z',
    };
    const { view, snapshotVersion } = creditNoteDocumentView(secrets, key, note, site);
    expect(documentView.parse(view)).toEqual(view);
    expect(view).toMatchObject({
      kind: 'credit_note',
      number: 'CN-2026/0007',
      invoiceNumber: 'INV-2026/0042',
      dueDate: null,
      seller: { iban: null },
      buyer: { vatId: 'DE321571435' },
    });
    expect(view.remarks).toBe('Full reversal of the voided invoice.\n\nordered twice');
    expect(snapshotVersion).toMatch(/^cn-/);
  });
});
