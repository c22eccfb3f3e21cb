import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import {
  checkoutHostFor,
  cnamePointsAt,
  frontendUrlOnHost,
  normalizeHostname,
  type CheckoutHostCandidate,
} from './custom-domain';

describe('normalizeHostname', () => {
  it('lower-cases, trims and drops one trailing dot', () => {
    expect(normalizeHostname('  Pay.Shop.Example. ')).toBe('pay.shop.example');
    expect(normalizeHostname('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });

  it.each([
    'localhost',
    '*.shop.example',
    'pay.shop.example:443',
    '10.0.0.1',
    'pay..shop.example',
    '-pay.shop.example',
    'pay_shop.example',
    'bücher.example',
    '',
  ])('rejects %j naming the hostname field', (raw) => {
    try {
      normalizeHostname(raw);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('hostname');
    }
  });

  it('rejects names longer than 253 characters', () => {
    const long = `${'a'.repeat(60)}.`.repeat(5) + 'example';
    expect(() => normalizeHostname(long)).toThrow(ValidationError);
  });
});

describe('cnamePointsAt', () => {
  it('matches the target ignoring case and the final dot', () => {
    expect(cnamePointsAt(['Checkout.Paymesh.Example.'], 'checkout.paymesh.example')).toBe(true);
    expect(cnamePointsAt(['other.example', 'checkout.paymesh.example'], 'checkout.paymesh.example.')).toBe(true);
  });

  it('does not match other names or lookalikes', () => {
    expect(cnamePointsAt([], 'checkout.paymesh.example')).toBe(false);
    expect(cnamePointsAt(['checkout.paymesh.example.evil.example'], 'checkout.paymesh.example')).toBe(false);
    expect(cnamePointsAt(['xcheckout.paymesh.example'], 'checkout.paymesh.example')).toBe(false);
  });
});

describe('checkout host of a site', () => {
  const site = { id: 'site-a', organizationId: 'org-1', mode: 'live' };
  const domain = (hostname: string, o: Partial<CheckoutHostCandidate> = {}): CheckoutHostCandidate => ({
    hostname,
    organizationId: 'org-1',
    mode: 'live',
    siteId: null,
    verified: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...o,
  });

  it('is the default host without a verified domain of the site or the organization', () => {
    expect(checkoutHostFor([], site)).toBeUndefined();
    expect(
      checkoutHostFor(
        [
          domain('unverified.example', { verified: false }),
          domain('other-site.example', { siteId: 'site-b' }),
          domain('other-org.example', { organizationId: 'org-2' }),
          domain('test-mode.example', { mode: 'test' }),
        ],
        site,
      ),
    ).toBeUndefined();
  });

  it("prefers the site's own domain over an organization-wide one, then the oldest", () => {
    const orgWide = domain('pay.org.example', { createdAt: '2025-01-01T00:00:00.000Z' });
    expect(checkoutHostFor([orgWide], site)).toBe('pay.org.example');
    expect(checkoutHostFor([orgWide, domain('pay.site.example', { siteId: 'site-a' })], site)).toBe('pay.site.example');
    expect(
      checkoutHostFor([domain('b.example'), domain('a.example', { createdAt: '2026-02-01T00:00:00.000Z' })], site),
    ).toBe('b.example');
  });

  it('moves the frontend URL onto the host, keeping scheme and path, on the default port', () => {
    expect(frontendUrlOnHost('https://checkout.paymesh.example', 'pay.shop.example')).toBe('https://pay.shop.example/');
    expect(frontendUrlOnHost('http://127.0.0.1:8081', 'pay.shop.example')).toBe('http://pay.shop.example/');
    expect(frontendUrlOnHost('https://edge.example:8443/pay', 'pay.shop.example')).toBe('https://pay.shop.example/pay');
  });
});
