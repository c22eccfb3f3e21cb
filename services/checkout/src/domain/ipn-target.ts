import { isIP } from 'node:net';
import {
  addressPermitted,
  classifyAddress,
  hostAllowListed,
  ValidationError,
  type TargetAllowList,
} from '@paymesh/core';

/** How IPN targets are checked (from configuration). */
export interface IpnPolicy {
  /** `http://` targets allowed (local development); otherwise HTTPS only. */
  allowHttp: boolean;
  /**
   * Targets the operator allows although not public (IPN_ALLOWED_TARGETS). Every other loopback,
   * private, link-local (metadata), CGNAT, NAT64, IPv4-mapped or reserved target is refused, in
   * every mode.
   */
  allowedTargets: TargetAllowList;
}

function fail(message: string): never {
  throw new ValidationError(`ipnUrl ${message}`, { field: 'ipnUrl' });
}

/**
 * Checks the form of an IPN target: absolute HTTPS URL (HTTP only when allowed), no credentials,
 * at most 2048 characters; literal non-public IPs and `localhost` are refused here unless
 * allow-listed (names are resolved by the caller, see {@link assertPermittedResolution}). The URL
 * parser has normalised obfuscated literals (2130706433, 0x7f.1, [::ffff:127.0.0.1]) already.
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
  const host = hostOf(url);
  if (hostAllowListed(policy.allowedTargets, host)) return value;
  if (host === 'localhost' || host.endsWith('.localhost')) fail('must not target localhost');
  if (isIP(host) !== 0 && !addressPermitted(policy.allowedTargets, host)) {
    fail(`must not target a ${classifyAddress(host)} address (only public addresses, or those the operator allows)`);
  }
  return value;
}

/** Host name of a URL without IPv6 brackets, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Refuses a target whose name resolves to any address that may not be contacted (DNS answers are
 * all checked). The message never names the resolved addresses: they may be internal topology.
 */
export function assertPermittedResolution(host: string, addresses: string[], allowed: TargetAllowList): void {
  if (addresses.length === 0) fail(`host ${host} does not resolve`);
  if (addresses.some((a) => !addressPermitted(allowed, a))) fail(`host ${host} resolves to a non-public address`);
}
