import { describe, expect, it } from 'vitest';
import { customDomainAllowsSite, defaultPortHostOf, originAllowed } from './origin';
import { applyBrandingPatch, effectiveVatIdValidation, sitePresentationOf } from './settings';
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

describe('custom domains in the origin allow-list', () => {
  const site = { id: 's1', organizationId: 'o1', mode: 'live' };
  const domain = { organizationId: 'o1', mode: 'live', siteId: null, verified: true };
  it('takes verified domains of the organization and mode, organization-wide or bound to the site', () => {
    expect(customDomainAllowsSite(domain, site)).toBe(true);
    expect(customDomainAllowsSite({ ...domain, siteId: 's1' }, site)).toBe(true);
    expect(customDomainAllowsSite({ ...domain, siteId: 's2' }, site)).toBe(false);
    expect(customDomainAllowsSite({ ...domain, verified: false }, site)).toBe(false);
    expect(customDomainAllowsSite({ ...domain, mode: 'test' }, site)).toBe(false);
    expect(customDomainAllowsSite({ ...domain, organizationId: 'o2' }, site)).toBe(false);
  });
  it('looks up only http(s) origins on the default port', () => {
    expect(defaultPortHostOf('https://Pay.Shop.example')).toBe('pay.shop.example');
    expect(defaultPortHostOf('https://pay.shop.example:443')).toBe('pay.shop.example');
    expect(defaultPortHostOf('https://pay.shop.example:8443')).toBeUndefined();
    expect(defaultPortHostOf('null')).toBeUndefined();
    expect(defaultPortHostOf('ftp://pay.shop.example')).toBeUndefined();
  });
});

describe('branding', () => {
  it('changes the fields given, clears empty ones, validates and normalizes', () => {
    const cur = { logo: 'https://cdn.example/a.png', primaryColor: '#aabbcc' };
    expect(applyBrandingPatch(cur, { primaryColor: '#AABBC0' })).toEqual({
      logo: 'https://cdn.example/a.png',
      primaryColor: '#aabbc0',
    });
    expect(applyBrandingPatch(cur, { logo: '' })).toEqual({ primaryColor: '#aabbcc' });
    expect(() => applyBrandingPatch(cur, { logo: 'http://cdn.example/a.png' })).toThrow(/branding\.logo/);
    expect(() => applyBrandingPatch(cur, { primaryColor: 'blue' })).toThrow(/branding\.primaryColor/);
    expect(() => applyBrandingPatch(cur, { logo: `https://cdn.example/${'a'.repeat(2048)}` })).toThrow(/2048/);
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
    expect(sitePresentationOf({ name: 'x' })).toEqual({
      logo: undefined,
      primaryColor: undefined,
      vatIdValidation: undefined,
    });
    expect(
      sitePresentationOf({
        branding: { logo: 'https://cdn.example/logo.png', primaryColor: '#123456' },
        checkoutSettings: { vatIdValidation: 'vies' },
      }),
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
