import { describe, expect, it } from 'vitest';
import {
  addressAllowListed,
  addressPermitted,
  classifyAddress,
  hostAllowListed,
  isPublicAddress,
  parseTargetAllowList,
  targetAllowListSchema,
} from './ip-targets';

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
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.100.100.200', 'carrier-grade-nat'],
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
    ['192.0.0.170', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['64:ff9b::7f00:1', 'nat64'],
    ['64:ff9b::5db8:d822', 'nat64'],
    ['64:ff9b:1::1', 'nat64'],
    ['2002:7f00:1::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['100::1', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('judges IPv6 forms that embed an IPv4 address by that address', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('::ffff:10.1.2.3')).toBe('private');
    expect(classifyAddress('::ffff:93.184.216.34')).toBe('public');
    expect(classifyAddress('[::ffff:169.254.169.254]')).toBe('link-local');
    expect(classifyAddress('::ffff:0:7f00:1')).toBe('loopback');
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

describe('target allow-list (IPN_ALLOWED_TARGETS)', () => {
  const list = parseTargetAllowList('127.0.0.1, receiver.internal, 10.20.0.0/16, [fd00::]/8, ::1');

  it('lets listed addresses and CIDRs through and nothing next to them', () => {
    expect(addressPermitted(list, '127.0.0.1')).toBe(true);
    expect(addressPermitted(list, '::ffff:127.0.0.1')).toBe(true);
    expect(addressPermitted(list, '127.0.0.2')).toBe(false);
    expect(addressPermitted(list, '10.20.3.4')).toBe(true);
    expect(addressPermitted(list, '10.21.0.1')).toBe(false);
    expect(addressPermitted(list, '::1')).toBe(true);
    expect(addressPermitted(list, 'fd12::1')).toBe(true);
    expect(addressPermitted(list, '169.254.169.254')).toBe(false);
    expect(addressPermitted(list, '93.184.216.34')).toBe(true);
    expect(addressAllowListed(list, '93.184.216.34')).toBe(false);
  });

  it('matches host names exactly', () => {
    expect(hostAllowListed(list, 'Receiver.Internal')).toBe(true);
    expect(hostAllowListed(list, 'receiver.internal.')).toBe(true);
    expect(hostAllowListed(list, 'x.receiver.internal')).toBe(false);
    expect(hostAllowListed(parseTargetAllowList(''), 'localhost')).toBe(false);
  });

  it('refuses unusable entries at start-up', () => {
    expect(() => parseTargetAllowList('10.0.0.0/33')).toThrow(/CIDR/);
    expect(() => parseTargetAllowList('127.1')).toThrow(/neither/);
    expect(() => parseTargetAllowList('http://x')).toThrow(/CIDR/);
    expect(() => parseTargetAllowList('two words')).toThrow(/neither/);
    expect(targetAllowListSchema.safeParse('bad entry').success).toBe(false);
    expect(targetAllowListSchema.parse(undefined).ranges).toEqual([]);
  });
});
