import type { CustomDomainDoc } from '../domain/custom-domain';
import { isDeleted, type Mode, type SiteDoc } from '../domain/site';
import { CUSTOM_DOMAINS, SITES } from '../store/collections';
import type { CheckoutDeps } from './deps';

export interface BuyerHostTenant {
  organizationId: string;
  mode: Mode;
  source: 'custom_domain' | 'frontend_domain';
}

/** Sites read for one host; a host listed by more sites than this is ambiguous anyway. */
const MAX_SITES_READ = 50;
/** A host as browsers name it: DNS name or bracketed IPv6, optional port. */
const HOST = /^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * Whose buyer pages a host serves. A CNAME-verified custom domain (unique across organizations,
 * proven by DNS) names its organization and mode alone. Otherwise every live site listing the host
 * in its `frontendDomains` counts: those are unverified claims, so several organizations may list
 * one host, and the caller must treat more than one organization as "cannot tell".
 */
export async function resolveBuyerHost(deps: Pick<CheckoutDeps, 'store'>, rawHost: string): Promise<BuyerHostTenant[]> {
  const host = rawHost
    .trim()
    .toLowerCase()
    .replace(/\.(?=:\d+$|$)/, '');
  if (!HOST.test(host)) return [];
  if (!host.includes(':')) {
    const domain = await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).findOne({ hostname: host });
    if (domain?.verified)
      return [{ organizationId: domain.organizationId, mode: domain.mode, source: 'custom_domain' }];
  }
  const sites = await deps.store
    .collection<SiteDoc>(SITES)
    .find({ frontendDomains: { $has: host } }, { limit: MAX_SITES_READ });
  const tenants = new Map<string, BuyerHostTenant>();
  for (const s of sites.items) {
    if (isDeleted(s)) continue;
    tenants.set(`${s.organizationId}:${s.mode}`, {
      organizationId: s.organizationId,
      mode: s.mode,
      source: 'frontend_domain',
    });
  }
  return [...tenants.values()];
}
