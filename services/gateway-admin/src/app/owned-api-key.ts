import { NotFoundError } from '@paymesh/core';
import type { Filter, CountedPage } from '@paymesh/store';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { AdminDeps } from './deps';
import { checkGrant, type Grantor } from '../domain/grants';

/** Whose keys a request manages: one organization's, or the deployment's system keys. */
export type KeyOwner = { kind: 'organization'; organizationId: string } | { kind: 'system' };

function owns(owner: KeyOwner, key: ApiKeyDoc): boolean {
  return owner.kind === 'system'
    ? key.kind === 'system'
    : key.kind === 'organization' && key.organizationId === owner.organizationId;
}

/**
 * The key with this document id if the owner holds it; anyone else's key is "not found". With a
 * grantor (changing, revoking or deleting a key), the caller must be able to issue that very key:
 * a weaker or test-mode key cannot rename, revoke or delete a stronger or live one.
 */
export async function ownedApiKey(deps: AdminDeps, owner: KeyOwner, id: string, grantor?: Grantor): Promise<ApiKeyDoc> {
  const key = await deps.store.collection<ApiKeyDoc>(API_KEYS).get(id);
  if (!key || !owns(owner, key)) throw new NotFoundError('API key not found');
  if (grantor) checkGrant(grantor, { kind: key.kind, role: key.role, scopes: key.scopes, mode: key.mode });
  return key;
}

/** The owner's keys, newest first. */
export function listApiKeys(
  deps: AdminDeps,
  owner: KeyOwner,
  page: number,
  limit: number,
): Promise<CountedPage<ApiKeyDoc>> {
  const filter: Filter =
    owner.kind === 'system' ? { kind: 'system' } : { kind: 'organization', organizationId: owner.organizationId };
  return deps.store.collection<ApiKeyDoc>(API_KEYS).find(filter, { sort: { createdAt: -1 }, page, limit, total: true });
}
