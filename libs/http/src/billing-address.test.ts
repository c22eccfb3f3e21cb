import { describe, expect, it } from 'vitest';
import { billingAddressAnswer } from './billing-address';

const address = {
  name: 'Ada',
  email: 'ada@example.com',
  line1: 'Main St 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

describe('billingAddressAnswer', () => {
  it('answers the six fields of an address and nothing else', () => {
    expect(billingAddressAnswer.parse({ ...address, internalNote: 'x' })).toEqual(address);
    expect(Object.keys(billingAddressAnswer.shape)).toEqual([
      'name',
      'email',
      'line1',
      'city',
      'postalCode',
      'country',
    ]);
  });

  it('refuses an address without one of them', () => {
    const { city: _city, ...withoutCity } = address;
    expect(billingAddressAnswer.safeParse(withoutCity).success).toBe(false);
  });
});
