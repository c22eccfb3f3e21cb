import { NotFoundError } from '@paymesh/core';
import { ORGANIZATIONS, type OrganizationDoc } from '../store/collections';
import type { AdminDeps } from './deps';

/** The organization record carrying its licence state. */
export async function getLicense(deps: AdminDeps, organizationId: string): Promise<OrganizationDoc> {
  const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(organizationId);
  if (!org) throw new NotFoundError('organization not found');
  return org;
}
