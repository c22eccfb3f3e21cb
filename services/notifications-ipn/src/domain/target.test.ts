import { describe, expect, it } from 'vitest';
import { EMPTY_TARGET_ALLOW_LIST, parseTargetAllowList } from '@paymesh/core';
import { checkLiteralHost, parseTargetUrl, permittedAddresses } from './target';

describe('parseTargetUrl', () => {
  it('accepts absolute http and https URLs only', () => {
    expect(parseTargetUrl('https://shop.example/ipn?x=1').ok).toBe(true);
    expect(parseTargetUrl('http://127.0.0.1:8080/ipn').ok).toBe(true);
    expect(parseTargetUrl('ftp://shop.example/ipn')).toEqual({
      ok: false,
      reason: 'ipnUrl scheme ftp: is not http or https',
    });
    expect(parseTargetUrl('file:///etc/passwd').ok).toBe(false);
    expect(parseTargetUrl('/relative')).toEqual({ ok: false, reason: 'ipnUrl is not a valid URL' });
  });
});

describe('checkLiteralHost', () => {
  const host = (u: string, allowed = EMPTY_TARGET_ALLOW_LIST) => checkLiteralHost(new URL(u), allowed);
  it('refuses non-public IP literals, including obfuscated and IPv6 forms', () => {
    expect(host('http://127.0.0.1/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://2130706433/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://0x7f.1/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://[::1]:8080/')).toEqual({ ok: false, reason: 'target address ::1 is loopback' });
    expect(host('http://[::ffff:169.254.169.254]/')).toMatchObject({ ok: false });
    expect(host('http://169.254.169.254/latest/meta-data')).toEqual({
      ok: false,
      reason: 'target address 169.254.169.254 is link-local',
    });
    expect(host('http://10.1.2.3/')).toEqual({ ok: false, reason: 'target address 10.1.2.3 is private' });
    expect(host('http://[::ffff:127.0.0.1]/')).toMatchObject({ ok: false, reason: expect.stringMatching(/loopback$/) });
    expect(host('http://[64:ff9b::a9fe:a9fe]/')).toMatchObject({ ok: false, reason: expect.stringMatching(/nat64$/) });
    expect(host('http://100.100.100.200/')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/carrier-grade-nat$/),
    });
  });

  it('lets an allow-listed literal through, and only that one', () => {
    const local = parseTargetAllowList('127.0.0.1');
    expect(host('http://127.0.0.1:9000/', local)).toEqual({ ok: true, value: '127.0.0.1' });
    expect(host('http://2130706433:9000/', local)).toEqual({ ok: true, value: '127.0.0.1' });
    expect(host('http://127.0.0.2/', local)).toMatchObject({ ok: false });
    expect(host('http://169.254.169.254/', local)).toMatchObject({ ok: false });
  });

  it('allows public literals and leaves host names to the connect-time lookup', () => {
    expect(host('https://93.184.216.34/')).toEqual({ ok: true, value: '93.184.216.34' });
    expect(host('https://shop.example/')).toBeNull();
    expect(host('http://localhost:3000/')).toBeNull();
  });
});

describe('permittedAddresses', () => {
  it('keeps only public addresses of a DNS answer', () => {
    expect(
      permittedAddresses(
        'mixed.example',
        [
          { address: '10.0.0.5', family: 4 },
          { address: '93.184.216.34', family: 4 },
          { address: 'fe80::1', family: 6 },
        ],
        EMPTY_TARGET_ALLOW_LIST,
      ),
    ).toEqual({ ok: true, value: [{ address: '93.184.216.34', family: 4 }] });
  });

  it('refuses a name that resolves only to non-public addresses, naming their classes but never the addresses', () => {
    expect(
      permittedAddresses(
        'localhost',
        [
          { address: '127.0.0.1', family: 4 },
          { address: '::1', family: 6 },
        ],
        EMPTY_TARGET_ALLOW_LIST,
      ),
    ).toEqual({
      ok: false,
      reason: 'localhost resolves only to non-public addresses (loopback)',
    });
    expect(permittedAddresses('nothing.example', [], EMPTY_TARGET_ALLOW_LIST)).toEqual({
      ok: false,
      reason: 'nothing.example did not resolve to any address',
    });
  });
});
