import { describe, expect, it } from 'vitest';
import { candidateHosts, organizationOfPage } from './tenant';

const ORG = '65f0a1b2c3d4e5f601234567';

describe('portal sign-in: where the organization comes from', () => {
  it("reads the portal page's address from the Referer of its calls", () => {
    expect(organizationOfPage(`https://pay.example/portal/${ORG}`)).toEqual({ organizationId: ORG, testMode: false });
    expect(organizationOfPage(`https://pay.example/prefix/portal/${ORG}/?mode=test`)).toEqual({
      organizationId: ORG,
      testMode: true,
    });
    expect(organizationOfPage(`https://pay.example/portal/${ORG}?mode=live`)).toEqual({
      organizationId: ORG,
      testMode: false,
    });
    for (const other of [
      undefined,
      '',
      'not a url',
      'https://pay.example/portal/magic-link',
      `https://pay.example/portal/${ORG}/documents`,
      `ftp://pay.example/portal/${ORG}`,
      'https://pay.example/portal/XYZ',
    ]) {
      expect(organizationOfPage(other), String(other)).toBeUndefined();
    }
  });

  it("looks up the page's host (Origin, else Referer) and then the request's, never the main frontend's", () => {
    const main = 'https://checkout.paymesh.example';
    expect(candidateHosts({ origin: 'https://Portal.Shop.example', host: 'checkout.paymesh.example' }, main)).toEqual([
      'portal.shop.example',
    ]);
    expect(candidateHosts({ referer: 'http://localhost:5173/account', host: 'kunden.shop.example' }, main)).toEqual([
      'localhost:5173',
      'kunden.shop.example',
    ]);
    expect(candidateHosts({ origin: 'https://kunden.shop.example', host: 'kunden.shop.example' }, main)).toEqual([
      'kunden.shop.example',
    ]);
    expect(candidateHosts({ origin: 'https://shop.example:443', host: 'x.example' }, undefined)).toEqual([
      'shop.example',
      'x.example',
    ]);
    expect(candidateHosts({ origin: 'null', host: 'checkout.paymesh.example' }, main)).toEqual([]);
    expect(candidateHosts({}, main)).toEqual([]);
  });
});
