import { NotFoundError } from '@paymesh/core';
import type { SiteDoc } from '../domain/site';
import { SITES } from '../store/collections';
import type { CheckoutDeps } from './deps';

/**
 * Opens a site's current IPN signing secret (for notifications-ipn, at delivery time, so a rotated
 * secret is never used again). Deleted sites still answer: notifications about their past
 * transactions keep being signed.
 */
export async function getSiteSigningSecret(
  deps: CheckoutDeps,
  organizationId: string,
  siteId: string,
): Promise<string> {
  const site = await deps.store.collection<SiteDoc>(SITES).get(siteId);
  if (!site || site.organizationId !== organizationId) throw new NotFoundError('site not found');
  return deps.secrets.open(site.webhookSecret, site.id);
}
