import { describe, expect, it } from 'vitest';
import { EU_MEMBER_STATES } from './eu';
import { euCountry } from './eu-country';
import { VAT_PREFIXES } from './vat-id';

describe('euCountry', () => {
  it('knows the 27 member states, with EL as the Greek VAT prefix', () => {
    const members = [
      'AT',
      'BE',
      'BG',
      'CY',
      'CZ',
      'DE',
      'DK',
      'EE',
      'ES',
      'FI',
      'FR',
      'GR',
      'HR',
      'HU',
      'IE',
      'IT',
      'LT',
      'LU',
      'LV',
      'MT',
      'NL',
      'PL',
      'PT',
      'RO',
      'SE',
      'SI',
      'SK',
    ];
    for (const code of members)
      expect(euCountry(code)).toMatchObject({ countryCode: code, euMember: true, euVatAreaForGoods: true });
    expect(euCountry('DE')).toEqual({
      countryCode: 'DE',
      euMember: true,
      euVatAreaForGoods: true,
      vatPrefix: 'DE',
      name: 'Germany',
    });
    expect(euCountry('gr')).toEqual({
      countryCode: 'GR',
      euMember: true,
      euVatAreaForGoods: true,
      vatPrefix: 'EL',
      name: 'Greece',
    });
    expect(euCountry('EL')).toEqual(euCountry('GR'));
  });

  it('says countries outside the EU are not members and have no VIES prefix', () => {
    expect(euCountry('US')).toEqual({
      countryCode: 'US',
      euMember: false,
      euVatAreaForGoods: false,
      vatPrefix: null,
      name: 'United States of America',
    });
    for (const code of ['GB', 'CH', 'NO', 'IS', 'LI', 'TR'])
      expect(euCountry(code)).toMatchObject({ euMember: false, vatPrefix: null });
  });

  it('treats Northern Ireland (XI) as outside the EU but inside its VAT area for goods', () => {
    expect(euCountry('xi')).toEqual({
      countryCode: 'XI',
      euMember: false,
      euVatAreaForGoods: true,
      vatPrefix: 'XI',
      name: 'Northern Ireland',
    });
  });

  it('does not know unassigned codes', () => {
    for (const code of ['QQ', 'ZZ', 'EU', 'UK', '']) expect(euCountry(code)).toBeNull();
  });
});

describe('euCountry and the VAT ID rules', () => {
  it('name the same member states', () => {
    const members = VAT_PREFIXES.filter((p) => p !== 'XI').map((p) => (p === 'EL' ? 'GR' : p));
    expect(Object.keys(EU_MEMBER_STATES).sort()).toEqual(members.sort());
  });
});
