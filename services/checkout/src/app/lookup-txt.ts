import { ValidationError } from '@paymesh/core';
import { normalizeHostname } from '../domain/custom-domain';
import type { CheckoutDeps } from './deps';

/** Underscore labels in front (`_paymesh-sender.`, RFC 8552) followed by a fully-qualified host name. */
function txtOwnerName(raw: string): string {
  const m = /^((?:_[a-z0-9-]{1,62}\.)*)(.*)$/.exec(raw.trim().toLowerCase());
  const leaves = m?.[1] ?? '';
  try {
    return `${leaves}${normalizeHostname(m?.[2] ?? '')}`;
  } catch {
    throw new ValidationError(`hostname: "${raw}" is not a fully-qualified host name (e.g. _tag.shop.example)`, {
      field: 'hostname',
    });
  }
}

export interface TxtRecords {
  hostname: string;
  /** Each TXT record's strings joined; empty when DNS has none. */
  values: string[];
  /** Why none was found; '' when some were. */
  reason: string;
}

/**
 * Looks up a host name's TXT records through the resolvers of the custom-domain checks (billing
 * proves a merchant's e-mail domain with them). Changes nothing; without a definitive DNS answer it
 * fails with 503.
 */
export async function lookupDnsTxt(deps: CheckoutDeps, rawHostname: string): Promise<TxtRecords> {
  const hostname = txtOwnerName(rawHostname);
  const lookup = await deps.customDomains.resolver.resolveTxt(hostname);
  const records =
    lookup.kind === 'found'
      ? { hostname, values: lookup.values, reason: '' }
      : { hostname, values: [], reason: lookup.reason };
  deps.logger.info({ hostname, found: records.values.length }, 'DNS TXT records looked up');
  return records;
}
