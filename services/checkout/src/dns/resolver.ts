import { Resolver } from 'node:dns/promises';
import { UnavailableError } from '@paymesh/core';

/** Outcome of a CNAME lookup that DNS answered definitively. */
export type CnameLookup = { kind: 'found'; names: string[] } | { kind: 'none'; reason: string };

/** Outcome of a TXT lookup that DNS answered definitively: each record's strings joined. */
export type TxtLookup = { kind: 'found'; values: string[] } | { kind: 'none'; reason: string };

/** Port for DNS lookups (the app layer never touches `node:dns`). */
export interface DnsResolver {
  /** Throws UnavailableError when DNS gives no definitive answer (timeout, SERVFAIL, refused). */
  resolveCname(hostname: string): Promise<CnameLookup>;
  /** Throws UnavailableError when DNS gives no definitive answer (timeout, SERVFAIL, refused). */
  resolveTxt(hostname: string): Promise<TxtLookup>;
}

export interface DnsResolverOptions {
  /** `ip` or `ip:port` (IPv6 as `[ip]:port`); empty = the system resolvers. */
  servers: string[];
  timeoutMs: number;
  tries: number;
}

function definitive(code: string, record: 'CNAME' | 'TXT'): string | undefined {
  if (code === 'ENODATA') return `the name has no ${record} record`;
  if (code === 'ENOTFOUND' || code === 'NXDOMAIN') return 'the name does not exist in DNS';
  return undefined;
}

function errorCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : 'UNKNOWN';
}

/** CNAME and TXT lookups through `node:dns` with the configured resolvers. */
export function createDnsResolver(opts: DnsResolverOptions): DnsResolver {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: opts.tries });
  if (opts.servers.length > 0) resolver.setServers(opts.servers);
  async function lookup<T>(hostname: string, record: 'CNAME' | 'TXT', ask: () => Promise<T>) {
    try {
      return { kind: 'found' as const, value: await ask() };
    } catch (err) {
      const code = errorCode(err);
      const reason = definitive(code, record);
      if (reason) return { kind: 'none' as const, reason };
      throw new UnavailableError(`DNS lookup of ${hostname} failed (${code}); try again later`, { cause: err });
    }
  }
  return {
    async resolveCname(hostname) {
      const r = await lookup(hostname, 'CNAME', () => resolver.resolveCname(hostname));
      return r.kind === 'found' ? { kind: 'found', names: r.value } : r;
    },
    async resolveTxt(hostname) {
      const r = await lookup(hostname, 'TXT', () => resolver.resolveTxt(hostname));
      return r.kind === 'found' ? { kind: 'found', values: r.value.map((chunks) => chunks.join('')) } : r;
    },
  };
}
