import { NotFoundError } from '@paymesh/core';
import type { Page } from '@paymesh/store';
import type { Mode, SiteDoc } from '../domain/site';
import { SITES } from '../store/collections';
import type { CheckoutDeps } from './deps';

/** A site of the organization in the given mode; other tenants' sites are reported as not found. */
export async function getSite(deps: CheckoutDeps, organizationId: string, mode: Mode, id: string): Promise<SiteDoc> {
  const site = await deps.store.collection<SiteDoc>(SITES).get(id);
  if (!site || site.organizationId !== organizationId || site.mode !== mode) throw new NotFoundError('site not found');
  return site;
}

export async function listSites(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  page: number,
  limit: number,
): Promise<Page<SiteDoc>> {
  return deps.store
    .collection<SiteDoc>(SITES)
    .find({ organizationId, mode }, { sort: { createdAt: -1 }, page, limit });
}
