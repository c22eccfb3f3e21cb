import { ConflictError } from '@paymesh/core';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { AdminDeps } from './deps';
import { ownedApiKey, type KeyOwner } from './owned-api-key';
import type { Grantor } from '../domain/grants';

/** Revokes a key for good (idempotent); it answers 401 from now on but stays listed for audit. */
export async function revokeApiKey(deps: AdminDeps, grantor: Grantor, owner: KeyOwner, id: string): Promise<ApiKeyDoc> {
  const key = await ownedApiKey(deps, owner, id, grantor);
  if (key.managedBy === 'config') throw new ConflictError('this key is managed by configuration (SYSTEM_API_KEY)');
  if (key.status === 'revoked') return key;
  const now = deps.clock.now().toISOString();
  const stored = await deps.store
    .collection<ApiKeyDoc>(API_KEYS)
    .update(key.id, (cur) =>
      cur.status === 'revoked' ? null : { ...cur, status: 'revoked', revokedAt: now, updatedAt: now },
    );
  deps.logger.info({ keyId: key.keyId }, 'api key revoked');
  return stored;
}
