import { Resolver } from 'node:dns/promises';
import { UnavailableError } from '@paymesh/core';

/** Outcome of a CNAME lookup that DNS answered definitively. */
export type CnameLookup = { kind: 'found'; names: string[] } | { kind: 'none'; reason: string };

/** Port for CNAME lookups (the app layer never touches `node:dns`). */
export interface CnameResolver {
  /** Throws UnavailableError when DNS gives no definitive answer (timeout, SERVFAIL, refused). */
  resolveCname(hostname: string): Promise<CnameLookup>;
}

export interface DnsResolverOptions {
  /** `ip` or `ip:port` (IPv6 as `[ip]:port`); empty = the system resolvers. */
  servers: string[];
  timeoutMs: number;
  tries: number;
}

const DEFINITIVE: Record<string, string> = {
  ENODATA: 'the name has no CNAME record',
  ENOTFOUND: 'the name does not exist in DNS',
  NXDOMAIN: 'the name does not exist in DNS',
};

function errorCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : 'UNKNOWN';
}

/** CNAME lookups through `node:dns` with the configured resolvers. */
export function createCnameResolver(opts: DnsResolverOptions): CnameResolver {
  const resolver = new Resolver({ timeout: opts.timeoutMs, tries: opts.tries });
  if (opts.servers.length > 0) resolver.setServers(opts.servers);
  return {
    async resolveCname(hostname) {
      try {
        return { kind: 'found', names: await resolver.resolveCname(hostname) };
      } catch (err) {
        const code = errorCode(err);
        const reason = DEFINITIVE[code];
        if (reason) return { kind: 'none', reason };
        throw new UnavailableError(`DNS lookup of ${hostname} failed (${code}); try again later`, { cause: err });
      }
    },
  };
}
