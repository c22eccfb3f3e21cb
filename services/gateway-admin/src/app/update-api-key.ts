import { ConflictError } from '@paymesh/core';
import { checkGrant, type Grantor } from '../domain/grants';
import type { Role, Scope } from '../domain/scopes';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { AdminDeps } from './deps';
import { ownedApiKey, type KeyOwner } from './owned-api-key';

export interface ApiKeyChanges {
  name?: string | undefined;
  scopes?: Scope[] | undefined;
  role?: Role | undefined;
}

/** Renames a key or changes its scopes/role; the resulting key must be one the caller could issue. */
export async function updateApiKey(
  deps: AdminDeps,
  grantor: Grantor,
  owner: KeyOwner,
  id: string,
  changes: ApiKeyChanges,
): Promise<ApiKeyDoc> {
  const key = await ownedApiKey(deps, owner, id, grantor);
  if (key.managedBy === 'config') throw new ConflictError('this key is managed by configuration (SYSTEM_API_KEY)');
  const scopes = changes.scopes ? [...new Set(changes.scopes)] : key.scopes;
  const role = changes.role ?? key.role;
  if (changes.scopes || changes.role) checkGrant(grantor, { kind: key.kind, role, scopes, mode: key.mode });
  const now = deps.clock.now().toISOString();
  return deps.store.collection<ApiKeyDoc>(API_KEYS).update(key.id, (cur) => ({
    ...cur,
    name: changes.name ?? cur.name,
    scopes,
    role,
    updatedAt: now,
  }));
}
