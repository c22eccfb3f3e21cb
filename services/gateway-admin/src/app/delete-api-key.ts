import { ConflictError, NotFoundError } from '@paymesh/core';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { AdminDeps } from './deps';
import { ownedApiKey, type KeyOwner } from './owned-api-key';
import type { Grantor } from '../domain/grants';

/** Deletes a key; it stops authenticating at once. */
export async function deleteApiKey(deps: AdminDeps, grantor: Grantor, owner: KeyOwner, id: string): Promise<void> {
  const key = await ownedApiKey(deps, owner, id, grantor);
  if (key.managedBy === 'config') throw new ConflictError('this key is managed by configuration (SYSTEM_API_KEY)');
  if (!(await deps.store.collection<ApiKeyDoc>(API_KEYS).delete(key.id))) throw new NotFoundError('API key not found');
  deps.logger.info({ keyId: key.keyId }, 'api key deleted');
}
