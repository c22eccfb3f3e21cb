import { classifyAddress } from './address-policy';

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
 * Checks a URL host that is an IP literal (no DNS lookup happens for those). Returns null for
 * host names, which are checked at connect time by the guarded lookup.
 */
export function checkLiteralHost(url: URL): TargetCheck<string> | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const cls = classifyAddress(host);
  if (cls === 'invalid') return null;
  return cls === 'public' ? { ok: true, value: host } : { ok: false, reason: `target address ${host} is ${cls}` };
}

/**
 * Keeps only the public addresses a host name resolved to; the connection is then made to one
 * of these, so a DNS answer cannot change between the check and the connect.
 */
export function publicAddresses(hostname: string, resolved: readonly ResolvedAddress[]): TargetCheck<ResolvedAddress[]> {
  const allowed = resolved.filter((a) => classifyAddress(a.address) === 'public');
  if (allowed.length > 0) return { ok: true, value: allowed };
  if (resolved.length === 0) return { ok: false, reason: `${hostname} did not resolve to any address` };
  const listed = resolved.map((a) => `${a.address} (${classifyAddress(a.address)})`).join(', ');
  return { ok: false, reason: `${hostname} resolves only to non-public addresses: ${listed}` };
}
