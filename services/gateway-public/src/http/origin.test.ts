import { describe, expect, it } from 'vitest';
import { browserOriginFor } from './origin';

const MAIN = 'https://checkout.paymesh.example';

describe('browser origin of buyer requests', () => {
  it('lets server-to-server calls (no Origin, no Referer) through', () => {
    expect(browserOriginFor({}, MAIN)).toBe('');
    expect(browserOriginFor({ origin: '' }, MAIN)).toBe('');
  });
  it('trusts the main frontend', () => {
    expect(browserOriginFor({ origin: MAIN }, MAIN)).toBe('');
    expect(browserOriginFor({ referer: `${MAIN}/c/cs_123?x=1` }, MAIN)).toBe('');
  });
  it('passes other origins on for the site check, Origin before Referer', () => {
    expect(browserOriginFor({ origin: 'https://shop.example' }, MAIN)).toBe('https://shop.example');
    expect(browserOriginFor({ referer: 'https://shop.example:8443/cart' }, MAIN)).toBe('https://shop.example:8443');
    expect(browserOriginFor({ origin: 'https://shop.example', referer: `${MAIN}/x` }, MAIN)).toBe(
      'https://shop.example',
    );
  });
  it('refuses unreadable origins with 403', () => {
    expect(() => browserOriginFor({ origin: 'null' }, MAIN)).toThrow(expect.objectContaining({ httpStatus: 403 }));
    expect(() => browserOriginFor({ referer: 'file:///etc/passwd' }, MAIN)).toThrow(
      expect.objectContaining({ httpStatus: 403 }),
    );
  });
});
