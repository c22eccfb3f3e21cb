import { digestEquals, UnauthenticatedError, ValidationError } from '@paymesh/core';
import { hashKeySecret, looksLikeApiKey, parseApiKey } from '../domain/api-key';
import type { Principal } from '../domain/principal';
import { API_KEYS, ORGANIZATIONS, type ApiKeyDoc, type OrganizationDoc } from '../store/collections';
import type { AdminDeps } from './deps';

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `Authorization: Bearer <token>` to a principal. Revoked keys, rotated-away secrets,
 * expired keys and keys of deleted organizations all get the same 401.
 */
export async function authenticate(
  deps: AdminDeps,
  authorization: string | undefined,
  organizationHeader: string | undefined,
): Promise<Principal> {
  if (!authorization) throw new UnauthenticatedError('missing Authorization header');
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m || !m[1]) throw new UnauthenticatedError('Authorization must be "Bearer <token>"');
  const token = m[1];
  if (!looksLikeApiKey(token)) throw new UnauthenticatedError('invalid token');
  const parsed = parseApiKey(token);
  if (!parsed) throw new UnauthenticatedError('invalid API key');
  const key = await deps.store.collection<ApiKeyDoc>(API_KEYS).findOne({ keyId: parsed.keyId });
  const now = deps.clock.now();
  if (
    !key ||
    key.status !== 'active' ||
    key.mode !== parsed.mode ||
    !digestEquals(key.secretHash, hashKeySecret(parsed.secret)) ||
    (key.expiresAt !== null && new Date(key.expiresAt) <= now)
  ) {
    throw new UnauthenticatedError('invalid API key');
  }
  touchLastUsed(deps, key, now);
  const scopes = new Set(key.scopes);
  if (key.kind === 'organization') {
    if (organizationHeader !== undefined) {
      throw new ValidationError('X-Organization-ID must not be sent with an organization API key; the key is bound to its organization');
    }
    if (!key.organizationId) throw new UnauthenticatedError('invalid API key');
    const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(key.organizationId);
    if (!org) throw new UnauthenticatedError('invalid API key');
    return { kind: 'organization_key', keyId: key.keyId, organizationId: key.organizationId, mode: key.mode, role: key.role, scopes };
  }
  return { kind: 'system_key', keyId: key.keyId, mode: key.mode, role: key.role, scopes };
}

function touchLastUsed(deps: AdminDeps, key: ApiKeyDoc, now: Date): void {
  if (key.lastUsedAt && now.getTime() - new Date(key.lastUsedAt).getTime() < LAST_USED_RESOLUTION_MS) return;
  void deps.store
    .collection<ApiKeyDoc>(API_KEYS)
    .update(key.id, (cur) => ({ ...stripMeta(cur), lastUsedAt: now.toISOString() }), 1)
    .catch((err: unknown) => deps.logger.debug({ err, keyId: key.keyId }, 'lastUsedAt not updated'));
}

function stripMeta<T extends { id: string; version: number }>(doc: T): Omit<T, 'id' | 'version'> {
  const { id: _id, version: _v, ...rest } = doc;
  return rest;
}
