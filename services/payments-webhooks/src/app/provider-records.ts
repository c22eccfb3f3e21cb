import { NotFoundError } from '@paymesh/core';
import { parseCredentials, type ProviderCredentials } from '../domain/credentials';
import type { PaymentAdapter } from '../providers/adapter';
import type { Mode, ProviderDoc } from '../domain/provider';
import { PROVIDERS } from '../store/collections';
import type { PaymentsDeps } from './deps';

/**
 * A live (not deleted) provider record of the organization in the given mode. Other tenants',
 * other modes' and deleted records are all reported as not found.
 */
export async function findOwnedProvider(
  deps: PaymentsDeps,
  organizationId: string,
  mode: Mode,
  id: string,
): Promise<ProviderDoc> {
  const doc = await deps.store.collection<ProviderDoc>(PROVIDERS).get(id);
  if (!doc || doc.organizationId !== organizationId || doc.mode !== mode || doc.deletedAt) {
    throw new NotFoundError('provider not found');
  }
  return doc;
}

/** Opens and re-validates a record's sealed credentials. */
export function openCredentials(deps: PaymentsDeps, doc: ProviderDoc): ProviderCredentials {
  const raw: unknown = JSON.parse(deps.secrets.open(doc.credentials, doc.id));
  return parseCredentials(doc.type, raw, { mode: doc.mode, requireHttps: deps.requireHttps });
}

/** The adapter bound to a record's current credentials (built once per credentials, then cached). */
export function adapterOf(deps: PaymentsDeps, doc: ProviderDoc): PaymentAdapter {
  return deps.adapters.forRecord(doc, () => openCredentials(deps, doc));
}
