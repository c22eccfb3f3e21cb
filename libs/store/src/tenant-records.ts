import type { TenantKey } from '@paymesh/core';
import type { Collection, CountedPage, StoredDoc } from './port';

/**
 * One page of a tenant's records of a kind that is deleted by marking (`deletedAt` set): those not
 * deleted, newest first, with the total.
 */
export function liveTenantRecords<T extends StoredDoc>(
  collection: Pick<Collection<T>, 'find'>,
  tenant: TenantKey,
  page: number,
  limit: number,
): Promise<CountedPage<T>> {
  return collection.find(
    { organizationId: tenant.organizationId, mode: tenant.mode, deletedAt: { $exists: false } },
    { sort: { createdAt: -1 }, page, limit, total: true },
  );
}
