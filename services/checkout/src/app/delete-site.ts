import { NotFoundError } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import { Subjects, type SiteDeleted } from '@paymesh/contracts';
import type { Mode, SiteDoc } from '../domain/site';
import type { CustomDomainDoc } from '../domain/custom-domain';
import { CUSTOM_DOMAINS, SITES } from '../store/collections';
import { ownsSite } from './get-site';
import type { CheckoutDeps } from './deps';

/**
 * Soft-deletes a site: it vanishes from the Admin API (404 from now on), its custom domains are
 * released to the organization (siteId cleared), and `checkout.site.deleted` is announced, all in
 * one transaction. The record stays so past transactions and their IPN keep their site.
 */
export async function deleteSite(deps: CheckoutDeps, organizationId: string, mode: Mode, id: string): Promise<void> {
  const now = deps.clock.now().toISOString();
  await deps.outbox.commit(async (tx) => {
    const sites = tx.collection<SiteDoc>(SITES);
    const site = await sites.get(id);
    if (!ownsSite(site, organizationId, mode)) throw new NotFoundError('site not found');
    await sites.replace({ ...site, deletedAt: now, updatedAt: now });
    const domains = tx.collection<CustomDomainDoc>(CUSTOM_DOMAINS);
    const bound = await domains.find({ siteId: id });
    for (const d of bound.items) {
      await domains.replace({ ...d, siteId: null, updatedAt: now });
    }
    const data: SiteDeleted = { organizationId, siteId: id, mode, deletedAt: now };
    tx.emit(Subjects.siteDeleted, data, { id: eventId(Subjects.siteDeleted, id), occurredAt: now });
  });
  deps.logger.info({ siteId: id, organizationId }, 'site deleted');
}
