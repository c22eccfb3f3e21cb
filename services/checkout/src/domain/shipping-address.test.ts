import { describe, expect, it } from 'vitest';
import { effectiveShippingAddress, validateOptionalShippingAddress, validateShippingAddress } from './shipping-address';

describe('shipping address', () => {
  it('needs an ISO country; the other fields are optional, trimmed and null when empty', () => {
    expect(validateShippingAddress({ country: ' fr ', name: ' Ada ', line1: '', postalCode: '69003' })).toEqual({
      country: 'FR',
      name: 'Ada',
      line1: null,
      city: null,
      postalCode: '69003',
    });
    expect(() => validateShippingAddress({})).toThrow(/shippingAddress\.country is required/);
    expect(() => validateShippingAddress({ country: 'XX' })).toThrow(/shippingAddress\.country must be a two-letter/);
    expect(() => validateShippingAddress({ country: 'FR', name: 'x'.repeat(201) })).toThrow(
      /shippingAddress\.name must be at most 200/,
    );
    expect(() => validateShippingAddress({ country: 'FR', postalCode: 'x'.repeat(21) }, 'ship')).toThrow(
      /ship\.postalCode/,
    );
  });

  it('is absent when not given, and the buyer’s wins over the checkout’s', () => {
    expect(validateOptionalShippingAddress(undefined)).toBeNull();
    expect(validateOptionalShippingAddress(null)).toBeNull();
    const fr = validateShippingAddress({ country: 'FR' });
    const at = validateShippingAddress({ country: 'AT' });
    expect(effectiveShippingAddress(fr, at)).toBe(fr);
    expect(effectiveShippingAddress(null, at)).toBe(at);
    expect(effectiveShippingAddress(null, undefined)).toBeNull();
  });
});
