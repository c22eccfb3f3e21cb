import { describe, expect, it } from 'vitest';
import { originAllowed } from './origin';
import { effectiveVatIdValidation, sitePresentationOf } from './settings';
import { licenseDenial } from './license';

describe('origin allow-list', () => {
  const domains = ['shop.example', 'localhost:5173'];
  it('matches the host on default ports and host:port otherwise', () => {
    expect(originAllowed('https://shop.example', domains)).toBe(true);
    expect(originAllowed('https://SHOP.example:443', domains)).toBe(true);
    expect(originAllowed('http://localhost:5173', domains)).toBe(true);
    expect(originAllowed('https://shop.example:8443', domains)).toBe(false);
    expect(originAllowed('http://localhost', domains)).toBe(false);
  });
  it('has no wildcard or suffix matching', () => {
    expect(originAllowed('https://www.shop.example', domains)).toBe(false);
    expect(originAllowed('https://evilshop.example', domains)).toBe(false);
    expect(originAllowed('https://shop.example.evil.test', domains)).toBe(false);
  });
  it('refuses opaque and non-http origins', () => {
    expect(originAllowed('null', domains)).toBe(false);
    expect(originAllowed('file:///x', domains)).toBe(false);
  });
});

describe('VAT ID validation mode', () => {
  it('downgrades vies to format unless tax settings allow VIES', () => {
    expect(effectiveVatIdValidation('vies', undefined)).toBe('format');
    expect(effectiveVatIdValidation('vies', false)).toBe('format');
    expect(effectiveVatIdValidation('vies', true)).toBe('vies');
    expect(effectiveVatIdValidation(undefined, undefined)).toBe('format');
    expect(effectiveVatIdValidation('none', true)).toBe('none');
  });
  it('reads site branding and settings leniently', () => {
    expect(sitePresentationOf({ name: 'x' })).toEqual({ logo: undefined, primaryColor: undefined, vatIdValidation: undefined });
    expect(
      sitePresentationOf({ branding: { logo: 'https://cdn.example/logo.png', primaryColor: '#123456' }, checkoutSettings: { vatIdValidation: 'vies' } }),
    ).toEqual({ logo: 'https://cdn.example/logo.png', primaryColor: '#123456', vatIdValidation: 'vies' });
    expect(sitePresentationOf({ branding: { logo: 'not a url', primaryColor: 7 }, checkoutSettings: 'junk' })).toEqual({
      logo: undefined,
      primaryColor: undefined,
      vatIdValidation: undefined,
    });
  });
});

describe('licence enforcement', () => {
  it('denies BLOCKED and NOT_ACTIVATED with 403 and a code, allows ACTIVE and unknown', () => {
    expect(licenseDenial('BLOCKED')).toMatchObject({ httpStatus: 403, code: 'LICENSE_BLOCKED' });
    expect(licenseDenial('NOT_ACTIVATED')).toMatchObject({ httpStatus: 403, code: 'LICENSE_NOT_ACTIVATED' });
    expect(licenseDenial('ACTIVE')).toBeUndefined();
    expect(licenseDenial(undefined)).toBeUndefined();
  });
});
