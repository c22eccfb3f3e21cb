import { BlockList, isIP } from 'node:net';
import { ValidationError } from '@paymesh/core';

/** How strict IPN targets are checked (from configuration). */
export interface IpnPolicy {
  /** `http://` targets allowed (local development); otherwise HTTPS only. */
  allowHttp: boolean;
  /** Refuse targets on loopback, private, link-local and other non-public addresses (production). */
  refusePrivateTargets: boolean;
}

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is publicly routable (not loopback, private, link-local, reserved, ...). */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by their IPv4 part.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped?.[1]) return isPublicAddress(mapped[1]);
    return !NON_PUBLIC.check(ip, 'ipv6');
  }
  return !NON_PUBLIC.check(ip, 'ipv4');
}

function fail(message: string): never {
  throw new ValidationError(`ipnUrl ${message}`, { field: 'ipnUrl' });
}

/**
 * Checks the form of an IPN target: absolute HTTPS URL (HTTP only when allowed), no credentials,
 * at most 2048 characters; with `refusePrivateTargets`, literal non-public IPs and `localhost`
 * are refused here (names are resolved by the caller, see {@link assertPublicResolution}).
 *
 * @returns the URL as given (trimmed).
 */
export function validateIpnUrl(raw: string, policy: IpnPolicy): string {
  const value = raw.trim();
  if (value.length > 2048) fail('must be at most 2048 characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    fail(policy.allowHttp ? 'must use http or https' : 'must use https');
  }
  if (url.username || url.password) fail('must not contain credentials');
  if (!url.hostname) fail('must name a host');
  if (policy.refusePrivateTargets) {
    const host = hostOf(url);
    if (host === 'localhost' || host.endsWith('.localhost')) fail('must not target localhost');
    if (isIP(host) !== 0 && !isPublicAddress(host)) fail('must not target a loopback, private or link-local address');
  }
  return value;
}

/** Host name of a URL without IPv6 brackets, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Refuses a target whose name resolves to any non-public address (DNS answers are all checked). */
export function assertPublicResolution(host: string, addresses: string[]): void {
  if (addresses.length === 0) fail(`host ${host} does not resolve`);
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad) fail(`host ${host} resolves to a non-public address (${bad})`);
}
