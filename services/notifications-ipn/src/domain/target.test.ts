import { describe, expect, it } from 'vitest';
import { checkLiteralHost, parseTargetUrl, publicAddresses } from './target';

describe('parseTargetUrl', () => {
  it('accepts absolute http and https URLs only', () => {
    expect(parseTargetUrl('https://shop.example/ipn?x=1').ok).toBe(true);
    expect(parseTargetUrl('http://127.0.0.1:8080/ipn').ok).toBe(true);
    expect(parseTargetUrl('ftp://shop.example/ipn')).toEqual({ ok: false, reason: 'ipnUrl scheme ftp: is not http or https' });
    expect(parseTargetUrl('file:///etc/passwd').ok).toBe(false);
    expect(parseTargetUrl('/relative')).toEqual({ ok: false, reason: 'ipnUrl is not a valid URL' });
  });
});

describe('checkLiteralHost', () => {
  const host = (u: string) => checkLiteralHost(new URL(u));
  it('refuses non-public IP literals, including obfuscated and IPv6 forms', () => {
    expect(host('http://127.0.0.1/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://2130706433/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://0x7f.1/')).toEqual({ ok: false, reason: 'target address 127.0.0.1 is loopback' });
    expect(host('http://[::1]:8080/')).toEqual({ ok: false, reason: 'target address ::1 is loopback' });
    expect(host('http://[::ffff:169.254.169.254]/')).toMatchObject({ ok: false });
    expect(host('http://169.254.169.254/latest/meta-data')).toEqual({ ok: false, reason: 'target address 169.254.169.254 is link-local' });
    expect(host('http://10.1.2.3/')).toEqual({ ok: false, reason: 'target address 10.1.2.3 is private' });
  });

  it('allows public literals and leaves host names to the connect-time lookup', () => {
    expect(host('https://93.184.216.34/')).toEqual({ ok: true, value: '93.184.216.34' });
    expect(host('https://shop.example/')).toBeNull();
    expect(host('http://localhost:3000/')).toBeNull();
  });
});

describe('publicAddresses', () => {
  it('keeps only public addresses of a DNS answer', () => {
    expect(
      publicAddresses('mixed.example', [
        { address: '10.0.0.5', family: 4 },
        { address: '93.184.216.34', family: 4 },
        { address: 'fe80::1', family: 6 },
      ]),
    ).toEqual({ ok: true, value: [{ address: '93.184.216.34', family: 4 }] });
  });

  it('refuses a name that resolves only to non-public addresses, naming them', () => {
    expect(publicAddresses('localhost', [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }])).toEqual({
      ok: false,
      reason: 'localhost resolves only to non-public addresses: 127.0.0.1 (loopback), ::1 (loopback)',
    });
    expect(publicAddresses('nothing.example', [])).toEqual({ ok: false, reason: 'nothing.example did not resolve to any address' });
  });
});
