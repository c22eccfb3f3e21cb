import { ConfigError } from '@paymesh/core';
import { hashKeySecret, parseApiKey } from '../domain/api-key';
import { SYSTEM_SCOPES } from '../domain/scopes';
import { API_KEYS, type ApiKeyDoc } from '../store/collections';
import { newApiKey } from './api-keys';
import type { AdminDeps } from './deps';

/**
 * Installs the deployment's root system key from configuration (SYSTEM_API_KEY), so the very first
 * organization can be created. Idempotent: an existing key with that key ID gets the configured
 * secret and full system scopes again.
 */
export async function ensureSystemKey(deps: AdminDeps, token: string): Promise<void> {
  const parsed = parseApiKey(token);
  if (!parsed)
    throw new ConfigError('SYSTEM_API_KEY must look like sk_live_<16 lower-case alphanumerics>.<43 base64url chars>');
  const keys = deps.store.collection<ApiKeyDoc>(API_KEYS);
  const existing = await keys.findOne({ keyId: parsed.keyId });
  const now = deps.clock.now().toISOString();
  if (existing) {
    if (existing.kind !== 'system') throw new ConfigError('SYSTEM_API_KEY collides with an organization key');
    await keys.update(existing.id, (cur) => {
      return {
        ...cur,
        secretHash: hashKeySecret(parsed.secret),
        status: 'active',
        scopes: [...SYSTEM_SCOPES],
        role: 'Admin',
        mode: parsed.mode,
        updatedAt: now,
        revokedAt: null,
        managedBy: 'config',
      };
    });
    return;
  }
  const created = newApiKey(
    {
      kind: 'system',
      organizationId: null,
      name: 'root system key (from configuration)',
      mode: parsed.mode,
      role: 'Admin',
      scopes: [...SYSTEM_SCOPES],
      expiresAt: null,
    },
    now,
    parsed.keyId,
    parsed.secret,
  );
  const { id, version: _v, ...rest } = created.key;
  try {
    await keys.insert({ ...rest, id, managedBy: 'config' });
  } catch (err) {
    // Another replica inserted it at the same moment.
    if (!(await keys.findOne({ keyId: parsed.keyId }))) throw err;
  }
  deps.logger.info({ keyId: parsed.keyId }, 'root system key installed');
}
