import { describe, expect, it } from 'vitest';
import type { TaxCalculation } from '@paymesh/contracts';
import { parseInvoiceTax } from './invoice-tax';
import { vatIdNotGiven } from '../../../../libs/contracts/test/tax-kit';

const allocation: TaxCalculation = {
  currency: 'EUR',
  taxIncluded: true,
  totalNet: 1000,
  totalTax: 190,
  totalGross: 1190,
  taxBreakdown: [{ taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: 1000, taxAmount: 190 }],
  lines: [],
  buyer: {
    country: 'DE',
    postcode: null,
    type: 'consumer',
    vatIdValidation: 'format',
    vatIdCheck: vatIdNotGiven(),
    vatIdTreatment: 'No VAT ID was given.',
  },
  seller: { homeCountry: 'DE', ossEnabled: false, ossThresholdExceeded: false },
  settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
  date: '2027-01-10',
  calculatedAt: '2027-01-10T00:00:00.000Z',
  engineVersion: 'test',
};
const invoiceId = 'a'.repeat(24);
const json = (v: unknown) => JSON.stringify(v);

describe('parseInvoiceTax (fixed tax of an invoice checkout)', () => {
  const checkout = { amount: 1190, currency: 'EUR', itemCount: 0 };

  it('is null when billing sends none', () => {
    expect(parseInvoiceTax(undefined, checkout)).toBeNull();
    expect(parseInvoiceTax('  ', checkout)).toBeNull();
  });

  it('takes an allocation of exactly the amount in the checkout currency', () => {
    const tax = parseInvoiceTax(json({ kind: 'invoice', invoiceId, allocation }), checkout);
    expect(tax?.invoiceId).toBe(invoiceId);
    expect(tax?.allocation.totalTax).toBe(190);
  });

  it.each([
    ['not JSON', '{', /JSON/],
    ['another kind', json({ kind: 'order', invoiceId, allocation }), /malformed/],
    ['a bad invoice id', json({ kind: 'invoice', invoiceId: 'x', allocation }), /malformed/],
    [
      'another currency',
      json({ kind: 'invoice', invoiceId, allocation: { ...allocation, currency: 'USD' } }),
      /currency/,
    ],
    [
      'another amount',
      json({ kind: 'invoice', invoiceId, allocation: { ...allocation, totalGross: 1189 } }),
      /exactly the checkout amount/,
    ],
  ])('refuses %s with a 400', (_name, raw, message) => {
    expect(() => parseInvoiceTax(raw, checkout)).toThrow(message);
  });

  it('refuses items beside an invoice tax', () => {
    expect(() =>
      parseInvoiceTax(json({ kind: 'invoice', invoiceId, allocation }), { ...checkout, itemCount: 1 }),
    ).toThrow(/no items/);
  });
});
