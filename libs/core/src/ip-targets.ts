import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Kind of an IP address as far as outbound calls to merchant-given URLs (IPN) are concerned.
 * Only `public` addresses may be contacted unless the operator allow-lists a target; every other
 * class names why not.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'carrier-grade-nat'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'nat64'
  | 'reserved'
  | 'invalid';

const V4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'carrier-grade-nat',
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
  // 64:ff9b::/96 and 64:ff9b:1::/48: a NAT64 gateway would forward to any IPv4 address, internal ones included.
  rfc6052: 'nat64',
};

/** IPv4-compatible addresses (::a.b.c.d, deprecated); ipaddr.js files them under unicast. */
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function classifyV4(ip: ipaddr.IPv4): AddressClass {
  // Everything else ipaddr.js knows (documentation, benchmarking, 192.0.0.0/24, 240/4, AS112, AMT,
  // 6to4 relay) is not where a merchant's server lives: refused as reserved.
  return V4_CLASSES[ip.range()] ?? 'reserved';
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  const range = ip.range();
  // Forms that carry an IPv4 address are judged by it, so ::ffff:127.0.0.1 is loopback.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return classifyV4(new ipaddr.IPv4(ip.toByteArray().slice(12)));
  if (range === 'unicast' && ip.match(V4_COMPATIBLE as [ipaddr.IPv6, number])) return 'reserved';
  // 6to4, Teredo, discard-only, documentation, ORCHIDv2 and the rest: tunnels or not routable.
  return V6_CLASSES[range] ?? 'reserved';
}

/** Strips `[]` and a `%zone` from an address literal; undefined unless it is a canonical IP literal. */
function parseLiteral(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const literal = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  // ipaddr.isValid also accepts legacy shorthand such as "127.1"; only canonical literals count.
  if (!ipaddr.IPv4.isValidFourPartDecimal(literal) && !ipaddr.IPv6.isValid(literal)) return undefined;
  return ipaddr.parse(literal);
}

/** Classifies an IP address literal (IPv4, IPv6, with or without `[]` or a `%zone`) with ipaddr.js range tables. */
export function classifyAddress(address: string): AddressClass {
  const ip = parseLiteral(address);
  if (!ip) return 'invalid';
  return ip instanceof ipaddr.IPv4 ? classifyV4(ip) : classifyV6(ip);
}

/** Whether an address is publicly routable. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/**
 * Operator-approved outbound targets that may be contacted although not public (IPN_ALLOWED_TARGETS):
 * host names (matched exactly, case-insensitively, against the URL's host) and addresses/CIDRs
 * (matched against the literal or every resolved address).
 */
export interface TargetAllowList {
  readonly hosts: ReadonlySet<string>;
  readonly ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const EMPTY_TARGET_ALLOW_LIST: TargetAllowList = { hosts: new Set(), ranges: [] };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Parses `host|ip|cidr[,...]`; throws an Error naming the first unusable entry. */
export function parseTargetAllowList(csv: string): TargetAllowList {
  const hosts = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of csv
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const bare = entry.replace(/^\[([^\]]*)\](\/\d+)?$/, '$1$2');
    if (bare.includes('/')) {
      try {
        ranges.push(ipaddr.parseCIDR(bare));
      } catch {
        throw new Error(`"${entry}" is not a valid CIDR`);
      }
    } else if (parseLiteral(bare)) {
      const ip = ipaddr.parse(bare);
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(bare) && !/^[\d.]+$/.test(bare)) {
      hosts.add(bare.toLowerCase().replace(/\.$/, ''));
    } else {
      throw new Error(`"${entry}" is neither a host name, an IP address nor a CIDR`);
    }
  }
  return { hosts, ranges };
}

/** zod field for an allow-list setting (comma-separated hosts, addresses and CIDRs; empty = none). */
export const targetAllowListSchema = z
  .string()
  .default('')
  .transform((v, ctx) => {
    try {
      return parseTargetAllowList(v);
    } catch (err) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: err instanceof Error ? err.message : String(err) });
      return z.NEVER;
    }
  });

/** Whether a URL host (name or literal, brackets allowed) is allow-listed by name. */
export function hostAllowListed(list: TargetAllowList, host: string): boolean {
  return list.hosts.has(
    host
      .replace(/^\[(.*)\]$/, '$1')
      .toLowerCase()
      .replace(/\.$/, ''),
  );
}

/** Whether an address lies in an allow-listed address or CIDR (IPv4-mapped IPv6 matches IPv4 entries). */
export function addressAllowListed(list: TargetAllowList, address: string): boolean {
  const ip = parseLiteral(address);
  if (!ip || list.ranges.length === 0) return false;
  const forms: (ipaddr.IPv4 | ipaddr.IPv6)[] = [ip];
  if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) forms.push(ip.toIPv4Address());
  return forms.some((f) =>
    list.ranges.some(([net, bits]) =>
      f instanceof ipaddr.IPv4
        ? net instanceof ipaddr.IPv4 && f.match(net, bits)
        : net instanceof ipaddr.IPv6 && f.match(net, bits),
    ),
  );
}

/** Whether an outbound call may go to this address: public, or allow-listed by the operator. */
export function addressPermitted(list: TargetAllowList, address: string): boolean {
  return isPublicAddress(address) || addressAllowListed(list, address);
}

/**
 * Settings of the services that check or call IPN targets (checkout, notifications-ipn). The old
 * IPN_ALLOW_PRIVATE_TARGETS switch is refused rather than ignored, so a deployment that relied on
 * it learns at start-up that its receivers must now be listed.
 */
export const ipnTargetsConfigSchema = z.object({
  /** Hosts, addresses and CIDRs IPN may reach although not public (e.g. `127.0.0.1` for a local receiver). */
  IPN_ALLOWED_TARGETS: targetAllowListSchema,
  IPN_ALLOW_PRIVATE_TARGETS: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === '',
      'was replaced by IPN_ALLOWED_TARGETS (hosts, addresses and CIDRs IPN may reach)',
    ),
});

/** The allow-list as one line for start-up logs. */
export function describeAllowList(list: TargetAllowList): string {
  return [...list.hosts, ...list.ranges.map(([ip, bits]) => `${ip.toString()}/${bits}`)].join(',') || '(none)';
}
