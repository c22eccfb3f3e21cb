import { describe, expect, it } from 'vitest';
import { assertPublicResolution, isPublicAddress, validateIpnUrl } from './ipn-target';

const prod = { allowHttp: false, refusePrivateTargets: true };
const dev = { allowHttp: true, refusePrivateTargets: false };

describe('IPN targets', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['not-an-ip', false],
  ])('classifies %s as public=%s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  it('accepts https and refuses http unless allowed', () => {
    expect(validateIpnUrl('https://merchant.example/ipn', prod)).toBe('https://merchant.example/ipn');
    expect(() => validateIpnUrl('http://merchant.example/ipn', prod)).toThrow('ipnUrl must use https');
    expect(validateIpnUrl('http://localhost:9000/ipn', dev)).toBe('http://localhost:9000/ipn');
  });

  it('refuses other schemes, relative URLs and credentials', () => {
    expect(() => validateIpnUrl('ftp://merchant.example/ipn', dev)).toThrow(/ipnUrl must use http or https/);
    expect(() => validateIpnUrl('/ipn', dev)).toThrow(/absolute URL/);
    expect(() => validateIpnUrl('https://user:pw@merchant.example/ipn', dev)).toThrow(/credentials/);
  });

  it('refuses literal private addresses and localhost when private targets are refused', () => {
    expect(() => validateIpnUrl('https://127.0.0.1/ipn', prod)).toThrow(/non|loopback/);
    expect(() => validateIpnUrl('https://[::1]/ipn', prod)).toThrow(/loopback/);
    expect(() => validateIpnUrl('https://localhost/ipn', prod)).toThrow(/localhost/);
    expect(() => validateIpnUrl('https://169.254.169.254/latest', prod)).toThrow(/link-local/);
    expect(validateIpnUrl('https://8.8.8.8/ipn', prod)).toBe('https://8.8.8.8/ipn');
  });

  it('refuses names resolving to any non-public address, or to nothing', () => {
    expect(() => assertPublicResolution('a.example', ['8.8.8.8', '10.0.0.1'])).toThrow(/non-public address \(10\.0\.0\.1\)/);
    expect(() => assertPublicResolution('a.example', [])).toThrow(/does not resolve/);
    expect(() => assertPublicResolution('a.example', ['8.8.8.8', '2606:4700:4700::1111'])).not.toThrow();
  });
});
