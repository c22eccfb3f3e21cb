import ipaddr from 'ipaddr.js';

/**
 * Kind of an IP address as far as outbound IPN is concerned. Only `public` addresses may be
 * contacted outside development mode (SSRF guard); every other class names why not.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

const V4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

const V6_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
};

function classifyV4(ip: ipaddr.IPv4): AddressClass {
  // Everything else ipaddr.js knows (documentation, benchmarking, 240/4, AS112, AMT) is not a
  // place a merchant's server lives: refuse it as reserved.
  return V4_CLASSES[ip.range()] ?? 'reserved';
}

function embeddedV4(ip: ipaddr.IPv6, firstByte: number): ipaddr.IPv4 {
  const bytes = ip.toByteArray().slice(firstByte, firstByte + 4);
  return new ipaddr.IPv4(bytes);
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  const range = ip.range();
  // Forms that carry an IPv4 address are judged by that address, so ::ffff:127.0.0.1 is loopback.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return classifyV4(ip.toIPv4Address());
  if (range === 'rfc6052' && ip.toNormalizedString().startsWith('64:ff9b:0:0:0:0:')) return classifyV4(embeddedV4(ip, 12));
  if (range === '6to4') return classifyV4(embeddedV4(ip, 2));
  return V6_CLASSES[range] ?? 'reserved';
}

/**
 * Classifies an IP address literal (IPv4, IPv6, with or without `[]` or a `%zone`).
 * Uses ipaddr.js range tables rather than hand-written parsing.
 */
export function classifyAddress(address: string): AddressClass {
  const literal = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!ipaddr.isValid(literal)) return 'invalid';
  // ipaddr.isValid also accepts legacy shorthand such as "127.1"; only canonical literals count.
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal) && !ipaddr.IPv6.isValid(literal)) return 'invalid';
  const ip = ipaddr.parse(literal);
  return ip instanceof ipaddr.IPv4 ? classifyV4(ip) : classifyV6(ip);
}

/** Whether an IPN may be sent to `address` when private targets are not allowed. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}
