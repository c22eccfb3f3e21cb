import { addressPermitted, classifyAddress, type TargetAllowList } from '@paymesh/core';

/** An address as returned by `dns.lookup(..., {all: true})`. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

export type TargetCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Parses an IPN URL; only absolute http(s) URLs are usable. */
export function parseTargetUrl(raw: string): TargetCheck<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'ipnUrl is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `ipnUrl scheme ${url.protocol} is not http or https` };
  }
  return { ok: true, value: url };
}

/**
 * Checks a URL host that is an IP literal (no DNS lookup happens for those): public, or in the
 * operator's allow-list. Returns null for host names, which are checked at connect time by the
 * guarded lookup. The URL parser has already normalised obfuscated forms (2130706433, 0x7f.1).
 */
export function checkLiteralHost(url: URL, allowed: TargetAllowList): TargetCheck<string> | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const cls = classifyAddress(host);
  if (cls === 'invalid') return null;
  return addressPermitted(allowed, host)
    ? { ok: true, value: host }
    : { ok: false, reason: `target address ${host} is ${cls}` };
}

/**
 * Keeps only the addresses a host name resolved to that may be contacted (public or allow-listed);
 * the connection is then made to one of these, so a DNS answer cannot change between the check and
 * the connect. The reason of a refusal names the classes, never the resolved addresses (they are
 * internal topology the merchant must not learn through delivery errors).
 */
export function permittedAddresses(
  hostname: string,
  resolved: readonly ResolvedAddress[],
  allowed: TargetAllowList,
): TargetCheck<ResolvedAddress[]> {
  const usable = resolved.filter((a) => addressPermitted(allowed, a.address));
  if (usable.length > 0) return { ok: true, value: usable };
  if (resolved.length === 0) return { ok: false, reason: `${hostname} did not resolve to any address` };
  const classes = [...new Set(resolved.map((a) => classifyAddress(a.address)))].join(', ');
  return { ok: false, reason: `${hostname} resolves only to non-public addresses (${classes})` };
}
