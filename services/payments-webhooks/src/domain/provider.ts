import { ValidationError, type SealedValue } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import { PROVIDER_TYPES, type ProviderType } from '@paymesh/contracts';
import type { Mode } from '@paymesh/core';

export type { Mode } from '@paymesh/core';

export { PROVIDER_TYPES, type ProviderType };

export function isProviderType(value: string): value is ProviderType {
  return (PROVIDER_TYPES as readonly string[]).includes(value);
}

/** A merchant's configured payment provider account. Credentials are sealed with the record id as AAD. */
export interface ProviderDoc extends StoredDoc {
  organizationId: string;
  mode: Mode;
  type: ProviderType;
  name: string;
  enabled: boolean;
  /** JSON of the type's credentials, sealed with SecretBox (AAD = record id). */
  credentials: SealedValue;
  /** Masked credential values safe to show, e.g. `{ secretKey: "sk_test_…f3a9" }`. */
  credentialHints: Record<string, string>;
  /** Provider-side id of the webhook endpoint the platform registered, if it did. */
  webhookEndpointId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Set when deleted: the record then answers as not found, takes no payments and no webhooks. */
  deletedAt?: string | null;
}

export function validateProviderName(name: string): string {
  const n = name.trim();
  if (n.length < 1 || n.length > 200) throw new ValidationError('name must be 1 to 200 characters', { field: 'name' });
  return n;
}

/** Path of the inbound webhook endpoint of a provider record under the Main Backend root URL. */
export function webhookPath(type: ProviderType, id: string): string {
  return `/hooks/${type}/${id}`;
}
