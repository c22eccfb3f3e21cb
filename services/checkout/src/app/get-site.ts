import { NotFoundError } from '@paymesh/core';
import { liveTenantRecords, type CountedPage } from '@paymesh/store';
import { isDeleted, type Mode, type SiteDoc } from '../domain/site';
import { SITES } from '../store/collections';
import type { CheckoutDeps } from './deps';

/** Whether the stored site is visible to this organization and mode (deleted sites are not). */
export function ownsSite(site: SiteDoc | null, organizationId: string, mode: Mode): site is SiteDoc {
  return !!site && site.organizationId === organizationId && site.mode === mode && !isDeleted(site);
}

/**
 * A live (not deleted) site of the organization in the given mode; other tenants' sites and
 * deleted sites are reported as not found.
 */
export async function getSite(deps: CheckoutDeps, organizationId: string, mode: Mode, id: string): Promise<SiteDoc> {
  const site = await deps.store.collection<SiteDoc>(SITES).get(id);
  if (!ownsSite(site, organizationId, mode)) throw new NotFoundError('site not found');
  return site;
}

export async function listSites(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  page: number,
  limit: number,
): Promise<CountedPage<SiteDoc>> {
  return liveTenantRecords(deps.store.collection<SiteDoc>(SITES), { organizationId, mode }, page, limit);
}
