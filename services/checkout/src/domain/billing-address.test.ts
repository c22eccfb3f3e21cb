import { describe, expect, it } from 'vitest';
import { normalizeVatId, validateBillingAddress, validateTaxAddress } from './billing-address';

describe('buyer VAT ID', () => {
  it('is normalized: spaces, dots and hyphens dropped, upper case', () => {
    expect(normalizeVatId(' fr 40-303.265.045 ', 'vatId')).toBe('FR40303265045');
    expect(normalizeVatId('  ', 'vatId')).toBeUndefined();
    expect(normalizeVatId(undefined, 'vatId')).toBeUndefined();
  });
  it('is refused with other characters or beyond 20 letters and digits', () => {
    expect(() => normalizeVatId('DE12345678<', 'billingAddress.vatId')).toThrow(/billingAddress\.vatId/);
    expect(() => normalizeVatId('DE1234567890123456789', 'vatId')).toThrow(/2 to 20/);
    expect(() => normalizeVatId('-', 'vatId')).toThrow(/vatId/);
  });
  it('is kept with the billing address only when given', () => {
    const base = { name: 'Ada', email: 'ada@example.com', country: 'fr' };
    expect(validateBillingAddress({ ...base, vatId: 'FR 40303265045' })).toMatchObject({
      country: 'FR',
      vatId: 'FR40303265045',
    });
    expect(validateBillingAddress(base)).not.toHaveProperty('vatId');
  });
});

describe('validateTaxAddress', () => {
  it('needs an assigned country and bounds the postcode', () => {
    expect(validateTaxAddress({ country: 'nl', postcode: ' 1011 AB ' })).toEqual({
      country: 'NL',
      postcode: '1011 AB',
      vatId: undefined,
    });
    expect(() => validateTaxAddress({})).toThrow('billingAddress.country is required');
    expect(() => validateTaxAddress({ country: 'QQ' })).toThrow(/billingAddress\.country must be a two-letter ISO/);
    expect(() => validateTaxAddress({ country: 'DE', postcode: 'x'.repeat(21) })).toThrow(/postcode/);
  });
});
