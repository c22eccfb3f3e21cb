import { describe, expect, it } from 'vitest';
import { einvoiceFileName, paymentTermsText, vatCategoryOf, vatIdentifier } from './einvoice';

describe('e-invoice mapping', () => {
  it('maps the tax decision and rate to the EN 16931 VAT category', () => {
    expect(vatCategoryOf({ decision: 'domestic', taxRate: 19 })).toBe('S');
    expect(vatCategoryOf({ decision: 'domestic_b2b', taxRate: 0 })).toBe('Z');
    expect(vatCategoryOf({ decision: 'manual_override', taxRate: 7 })).toBe('S');
    expect(vatCategoryOf({ decision: 'reverse_charge', taxRate: 0 })).toBe('AE');
    expect(vatCategoryOf({ decision: 'intra_community_supply', taxRate: 0 })).toBe('K');
    expect(vatCategoryOf({ decision: 'export', taxRate: 0 })).toBe('G');
    expect(vatCategoryOf({ decision: 'seller_not_configured', taxRate: 0 })).toBeNull();
  });

  it('writes VAT identifiers with their country prefix, and only VAT IDs', () => {
    expect(vatIdentifier('DE 136 695 976', 'vat', 'DE')).toBe('DE136695976');
    expect(vatIdentifier('136695976', 'vat', 'DE')).toBe('DE136695976');
    expect(vatIdentifier('094259216', null, 'GR')).toBe('EL094259216');
    expect(vatIdentifier('12-3456789', 'ein', 'US')).toBeNull();
    expect(vatIdentifier(null, 'vat', 'DE')).toBeNull();
  });

  it('states payment terms and names files safely', () => {
    expect(
      paymentTermsText({ kind: 'invoice', dueDate: '2027-03-15', paymentTermsDays: 14, precedingInvoice: null }),
    ).toBe('Payable within 14 days, by 2027-03-15.');
    expect(paymentTermsText({ kind: 'invoice', dueDate: null, paymentTermsDays: null, precedingInvoice: null })).toBe(
      'Payable on receipt.',
    );
    expect(
      paymentTermsText({
        kind: 'credit_note',
        dueDate: null,
        paymentTermsDays: null,
        precedingInvoice: { number: 'INV-1', issueDate: null },
      }),
    ).toBe('Credits invoice INV-1.');
    expect(einvoiceFileName('INV/2027 01', 'peppol', 'xml')).toBe('INV_2027_01-peppol.xml');
  });
});
