import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress } from './address-policy';

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('judges IPv6 forms that embed an IPv4 address by that address', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('::ffff:10.1.2.3')).toBe('private');
    expect(classifyAddress('::ffff:93.184.216.34')).toBe('public');
    expect(classifyAddress('64:ff9b::a00:1')).toBe('private');
    expect(classifyAddress('64:ff9b::5db8:d822')).toBe('public');
    expect(classifyAddress('2002:7f00:1::1')).toBe('loopback');
    expect(classifyAddress('2002:5db8:d822::1')).toBe('public');
  });

  it('calls anything that is not a canonical IP literal invalid', () => {
    for (const s of ['', 'localhost', 'example.com', '127.1', '0x7f.0.0.1', '1.2.3.4.5', '::g']) {
      expect(classifyAddress(s), s).toBe('invalid');
    }
  });
});

describe('isPublicAddress', () => {
  it('allows only public unicast addresses', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(isPublicAddress('127.0.0.1')).toBe(false);
    expect(isPublicAddress('169.254.169.254')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});
