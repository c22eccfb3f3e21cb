import type { z } from 'zod';
import type { Mode, ProviderType } from '../domain/provider';
import type { PaymentAdapter } from './adapter';

/** Opened credentials of any type: the fields of its schema; `apiBaseUrl` is common to all. */
export type CredentialValue = { readonly [field: string]: unknown; readonly apiBaseUrl?: string | undefined };

/**
 * Everything type-specific about a provider type, declared in one place
 * (`providers/<type>/module.ts`); generic code asks the module and never names a provider.
 * `Options` are the service-wide settings of the type (from config.ts, assembled in main.ts).
 */
export interface ProviderModule<C extends CredentialValue = CredentialValue, Options = unknown> {
  readonly type: ProviderType;
  /** Strict schema of the credentials object a merchant gives (errors name `credentials.<field>`). */
  readonly credentials: z.ZodType<C, z.ZodTypeDef, unknown>;
  /** The credential field that does not belong to a record of `mode` (test keys on live records), or null. */
  modeMismatch(credentials: C, mode: Mode): string | null;
  /** Masked hint of a secret field (recognisable prefix + last four); null shows the value as it is. */
  hint(field: string, value: string): string | null;
  /** The field named when the provider rejects the credentials. */
  readonly keyField: string;
  /**
   * When the platform registers its webhook endpoint at the provider for a new record: whether these
   * credentials need it and where the returned signing secret is kept. Null: the provider has none.
   */
  readonly webhookRegistration: {
    needed(credentials: C): boolean;
    withSecret(credentials: C, secret: string): C;
  } | null;
  /** The adapter bound to a record's (validated) credentials. */
  createAdapter(credentials: C, options: Options): PaymentAdapter;
}

/** Settings shared by every record of a provider type (from the service configuration). */
export interface ProviderOptions {
  /** API origin for records that do not set their own `apiBaseUrl`. */
  defaultApiBaseUrl: string;
  timeoutMs: number;
  maxNetworkRetries: number;
}

/** `sk_test_…f3a9`: a recognisable prefix and the last four characters, never more. */
export function maskWithPrefix(value: string, prefix: RegExp): string {
  return `${prefix.exec(value)?.[0] ?? ''}…${value.slice(-4)}`;
}

/**
 * Provider metadata as our flat string map: string values kept, numbers and booleans as text,
 * anything else (objects, null) dropped; null when the provider sent no object.
 */
export function normaliseMetadata(raw: unknown): Record<string, string> | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

/** The metadata the platform attaches to every provider payment; webhooks are checked against it. */
export function paymentMetadata(input: {
  transactionId: string;
  organizationId: string;
  siteId: string;
  providerId: string;
}) {
  return {
    transaction_id: input.transactionId,
    organization_id: input.organizationId,
    site_id: input.siteId,
    provider_id: input.providerId,
  };
}
