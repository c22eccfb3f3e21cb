import { ConflictError } from '@paymesh/core';
import { formatApiKey, hashKeySecret, newKeySecret } from '../domain/api-key';
import { checkGrant, type Grantor } from '../domain/grants';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { CreatedApiKey } from './api-keys';
import type { AdminDeps } from './deps';
import { ownedApiKey, type KeyOwner } from './owned-api-key';

/**
 * Gives the key a new secret under the same key ID; the old secret stops working with this
 * write. Rotating hands out the key's power, so the caller must be able to issue such a key.
 */
export async function rotateApiKey(
  deps: AdminDeps,
  grantor: Grantor,
  owner: KeyOwner,
  id: string,
): Promise<CreatedApiKey> {
  const key = await ownedApiKey(deps, owner, id);
  if (key.managedBy === 'config') throw new ConflictError('this key is managed by configuration (SYSTEM_API_KEY)');
  if (key.status !== 'active') throw new ConflictError('a revoked key cannot be rotated');
  checkGrant(grantor, { kind: key.kind, role: key.role, scopes: key.scopes, mode: key.mode });
  const secret = newKeySecret();
  const now = deps.clock.now().toISOString();
  const stored = await deps.store.collection<ApiKeyDoc>(API_KEYS).update(key.id, (cur) => {
    if (cur.status !== 'active') throw new ConflictError('a revoked key cannot be rotated');
    return { ...cur, secretHash: hashKeySecret(secret), updatedAt: now };
  });
  deps.logger.info({ keyId: key.keyId }, 'api key rotated');
  return { key: stored, token: formatApiKey(stored.mode, stored.keyId, secret) };
}
