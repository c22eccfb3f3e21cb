import { describe, expect, it } from 'vitest';
import { buyerClientId, buyerClientInput, type BuyerDetails } from './buyer-client';

const nora: BuyerDetails = {
  name: 'Nora Buyer',
  email: ' nora@example.com ',
  line1: 'Damrak 1',
  city: 'Amsterdam',
  postalCode: '1012',
  country: 'nl',
  vatId: '',
};
const ORG = 'a'.repeat(24);

describe('client of a buyer known by billing details', () => {
  it('takes name, e-mail and the complete postal address', () => {
    expect(buyerClientInput(nora)).toEqual({
      name: 'Nora Buyer',
      email: 'nora@example.com',
      address: { street: 'Damrak 1', city: 'Amsterdam', postalCode: '1012', country: 'NL' },
    });
  });

  it('names the buyer by e-mail without a name and keeps the country as tax country without a full address', () => {
    expect(buyerClientInput({ ...nora, name: ' ', line1: '', city: '' })).toEqual({
      name: 'nora@example.com',
      email: 'nora@example.com',
      taxInfo: { taxCountry: 'NL' },
    });
  });

  it('keeps a VAT ID of the country and drops one that is not', () => {
    expect(buyerClientInput({ ...nora, country: 'DE', vatId: 'DE129273398' })?.taxInfo).toEqual({
      taxId: { plaintext: 'DE129273398' },
      taxIdType: 'vat',
      taxCountry: 'DE',
    });
    expect(buyerClientInput({ ...nora, country: 'DE', vatId: 'DE123' })?.taxInfo).toBeUndefined();
  });

  it('makes no buyer without a valid e-mail or country', () => {
    expect(buyerClientInput({ ...nora, email: '' })).toBeNull();
    expect(buyerClientInput({ ...nora, email: 'not-an-email' })).toBeNull();
    expect(buyerClientInput({ ...nora, country: '' })).toBeNull();
  });

  it('derives one client id per organization, mode and e-mail, whatever its letter case', () => {
    const id = buyerClientId(ORG, 'live', 'Nora@Example.com ');
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(buyerClientId(ORG, 'live', 'nora@example.com')).toBe(id);
    expect(buyerClientId(ORG, 'test', 'nora@example.com')).not.toBe(id);
    expect(buyerClientId('b'.repeat(24), 'live', 'nora@example.com')).not.toBe(id);
  });
});
