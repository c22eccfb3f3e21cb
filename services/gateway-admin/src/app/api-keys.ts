import { newObjectId, ValidationError } from '@paymesh/core';
import type { TxScope } from '@paymesh/store';
import { formatApiKey, hashKeySecret, newKeyId, newKeySecret } from '../domain/api-key';
import { checkGrant, type Grantor } from '../domain/grants';
import { ORGANIZATION_SCOPES, SYSTEM_SCOPES, type Role, type Scope } from '../domain/scopes';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import type { AdminDeps } from './deps';

/** What a new key is given; the rest of its record (ids, secret hash, status, times) is made here. */
export type CreateApiKeyInput = Pick<
  ApiKeyDoc,
  'kind' | 'organizationId' | 'name' | 'mode' | 'role' | 'scopes' | 'expiresAt'
>;

/** The stored key and the full token, which is shown this once and never again. */
export interface CreatedApiKey {
  key: ApiKeyDoc;
  token: string;
}

function checkScopes(kind: 'organization' | 'system', scopes: Scope[]): void {
  const allowed = new Set<string>(kind === 'system' ? SYSTEM_SCOPES : ORGANIZATION_SCOPES);
  const bad = scopes.filter((s) => !allowed.has(s));
  if (bad.length)
    throw new ValidationError(`scopes not allowed for ${kind} keys: ${bad.join(', ')}`, { field: 'scopes' });
  if (scopes.length === 0) throw new ValidationError('scopes must not be empty', { field: 'scopes' });
}

/** Builds a new key document and its token (not yet stored). */
export function newApiKey(
  input: CreateApiKeyInput,
  now: string,
  keyId = newKeyId(),
  secret = newKeySecret(),
): CreatedApiKey {
  checkScopes(input.kind, input.scopes);
  const key: ApiKeyDoc = {
    id: newObjectId(),
    version: 1,
    keyId,
    kind: input.kind,
    organizationId: input.organizationId,
    name: input.name,
    mode: input.mode,
    role: input.role,
    scopes: [...new Set(input.scopes)],
    secretHash: hashKeySecret(secret),
    status: 'active',
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: input.expiresAt,
  };
  return { key, token: formatApiKey(input.mode, keyId, secret) };
}

export async function insertApiKey(tx: TxScope, created: CreatedApiKey): Promise<CreatedApiKey> {
  const { id, version: _v, ...rest } = created.key;
  const stored = await tx.collection<ApiKeyDoc>(API_KEYS).insert({ ...rest, id });
  return { key: stored, token: created.token };
}

export async function createApiKey(deps: AdminDeps, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const created = newApiKey(input, deps.clock.now().toISOString());
  return deps.store.transaction((tx) => insertApiKey(tx, created));
}

/**
 * Issues a key on behalf of a caller, who can grant at most what it holds (see `checkGrant`).
 * `role` defaults to the caller's role. The token is returned this once.
 */
export async function issueApiKey(
  deps: AdminDeps,
  grantor: Grantor,
  input: Omit<CreateApiKeyInput, 'role'> & { role: Role | undefined },
): Promise<CreatedApiKey> {
  const role = input.role ?? grantor.role;
  checkGrant(grantor, { kind: input.kind, role, scopes: input.scopes, mode: input.mode });
  if (input.expiresAt !== null && new Date(input.expiresAt) <= deps.clock.now()) {
    throw new ValidationError('body.expiresAt: must be in the future', { field: 'expiresAt' });
  }
  const key = await createApiKey(deps, { ...input, role });
  deps.logger.info(
    { keyId: key.key.keyId, kind: key.key.kind, organizationId: key.key.organizationId },
    'api key created',
  );
  return key;
}
