import { NotFoundError } from '@paymesh/core';
import type { Collection } from '@paymesh/store';
import type { ClientDoc } from '../domain/client';
import { CLIENTS } from '../store/collections';
import type { BillingDeps, OrgKey } from './deps';

export function clientsOf(deps: Pick<BillingDeps, 'store'>): Collection<ClientDoc> {
  return deps.store.collection<ClientDoc>(CLIENTS);
}

/** The client of this organization and mode; NotFoundError otherwise (other tenants included). */
export async function requireClient(
  deps: Pick<BillingDeps, 'store'>,
  key: OrgKey,
  clientId: string,
): Promise<ClientDoc> {
  const doc = await clientsOf(deps).findOne({ id: clientId, organizationId: key.organizationId, mode: key.mode });
  if (!doc) throw new NotFoundError('client not found');
  return doc;
}
