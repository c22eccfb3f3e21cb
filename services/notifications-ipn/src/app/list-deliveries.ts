import { requireObjectId } from '@paymesh/core';
import { DELIVERIES, type DeliveryDoc } from '../store/collections';
import type { IpnDeps } from './deps';

/**
 * Every IPN delivery of one transaction of the organization, newest status change first.
 * Another organization's transaction yields an empty list, exactly like one without IPN.
 */
export async function listDeliveries(
  deps: Pick<IpnDeps, 'store'>,
  organizationId: string,
  transactionId: string,
): Promise<DeliveryDoc[]> {
  requireObjectId(organizationId, 'organizationId');
  requireObjectId(transactionId, 'transactionId');
  const page = await deps.store
    .collection<DeliveryDoc>(DELIVERIES)
    .find({ organizationId, transactionId }, { sort: { sequence: -1 } });
  return page.items;
}
