import { describe, expect, it } from 'vitest';
import { EMPTY_TARGET_ALLOW_LIST, parseTargetAllowList } from '@paymesh/core';
import { assertPermittedResolution, validateIpnUrl } from './ipn-target';

const prod = { allowHttp: false, allowedTargets: EMPTY_TARGET_ALLOW_LIST };
const devWithoutList = { allowHttp: true, allowedTargets: EMPTY_TARGET_ALLOW_LIST };
const local = { allowHttp: true, allowedTargets: parseTargetAllowList('127.0.0.1') };

describe('IPN targets', () => {
  it('accepts https and refuses http unless allowed', () => {
    expect(validateIpnUrl('https://merchant.example/ipn', prod)).toBe('https://merchant.example/ipn');
    expect(() => validateIpnUrl('http://merchant.example/ipn', prod)).toThrow('ipnUrl must use https');
    expect(validateIpnUrl('http://127.0.0.1:9000/ipn', local)).toBe('http://127.0.0.1:9000/ipn');
  });

  it('refuses other schemes, relative URLs and credentials', () => {
    expect(() => validateIpnUrl('ftp://merchant.example/ipn', local)).toThrow(/ipnUrl must use http or https/);
    expect(() => validateIpnUrl('/ipn', local)).toThrow(/absolute URL/);
    expect(() => validateIpnUrl('https://user:pw@merchant.example/ipn', local)).toThrow(/credentials/);
  });

  it.each([
    ['https://127.0.0.1/ipn', /loopback/],
    ['https://[::1]/ipn', /loopback/],
    ['https://localhost/ipn', /localhost/],
    ['https://169.254.169.254/latest', /link-local/],
    ['https://2130706433/ipn', /loopback/],
    ['https://0x7f.1/ipn', /loopback/],
    ['https://[::ffff:127.0.0.1]/ipn', /loopback/],
    ['https://[::ffff:169.254.169.254]/ipn', /link-local/],
    ['https://[64:ff9b::a9fe:a9fe]/ipn', /nat64/],
    ['https://100.64.0.1/ipn', /carrier-grade-nat/],
    ['https://10.0.0.5/ipn', /private/],
    ['https://[fd00::1]/ipn', /private/],
    ['https://192.0.2.1/ipn', /reserved/],
  ])('refuses %s in every mode', (url, reason) => {
    expect(() => validateIpnUrl(url, prod)).toThrow(reason);
    expect(() => validateIpnUrl(url.replace('https:', 'http:'), devWithoutList)).toThrow(reason);
  });

  it('accepts public literals and the allow-listed receiver only', () => {
    expect(validateIpnUrl('https://8.8.8.8/ipn', prod)).toBe('https://8.8.8.8/ipn');
    expect(validateIpnUrl('https://127.0.0.1:8443/ipn', local)).toBe('https://127.0.0.1:8443/ipn');
    expect(() => validateIpnUrl('https://127.0.0.2/ipn', local)).toThrow(/loopback/);
    const named = { allowHttp: false, allowedTargets: parseTargetAllowList('localhost') };
    expect(validateIpnUrl('https://localhost:9000/ipn', named)).toBe('https://localhost:9000/ipn');
  });

  it('refuses names resolving to any non-public address, or to nothing, without echoing addresses', () => {
    expect(() => assertPermittedResolution('a.example', ['8.8.8.8', '10.0.0.1'], EMPTY_TARGET_ALLOW_LIST)).toThrow(
      /^ipnUrl host a\.example resolves to a non-public address$/,
    );
    expect(() => assertPermittedResolution('a.example', [], EMPTY_TARGET_ALLOW_LIST)).toThrow(/does not resolve/);
    expect(() =>
      assertPermittedResolution('a.example', ['8.8.8.8', '2606:4700:4700::1111'], EMPTY_TARGET_ALLOW_LIST),
    ).not.toThrow();
    expect(() =>
      assertPermittedResolution('a.example', ['10.0.0.1'], parseTargetAllowList('10.0.0.0/8')),
    ).not.toThrow();
  });
});
