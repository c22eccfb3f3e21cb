import { z } from 'zod';
import { ValidationError } from '@paymesh/core';
import type { Mode, ProviderType } from './provider';

/** An API origin (scheme, host, optional port); SDKs take no base path. */
const apiBaseUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\/[^/?#]+\/?$/.test(u), 'must be an http(s) origin such as https://api.example.com')
  .transform((u) => u.replace(/\/+$/, ''));

/** provider_a (Stripe-style cards). Without `webhookSecret` the platform registers the webhook endpoint itself. */
export const providerACredentials = z
  .object({
    secretKey: z.string().regex(/^sk_(test|live)_[A-Za-z0-9_]{8,240}$/, 'must look like sk_test_… or sk_live_…'),
    webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9+/=_-]{16,200}$/, 'must look like whsec_…').optional(),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderACredentials = z.infer<typeof providerACredentials>;

/** provider_b (redirect payments; no webhook secret, callbacks are hints to fetch the payment). */
export const providerBCredentials = z
  .object({
    apiKey: z.string().regex(/^(test|live)_[A-Za-z0-9]{20,100}$/, 'must look like test_… or live_…'),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderBCredentials = z.infer<typeof providerBCredentials>;

/** provider_c (direct debit; `Webhook-Signature` keyed with `webhookSecret`). */
export const providerCCredentials = z
  .object({
    accessToken: z.string().min(20).max(200),
    webhookSecret: z.string().min(16).max(200),
    environment: z.enum(['sandbox', 'live']),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderCCredentials = z.infer<typeof providerCCredentials>;

/** provider_d (wallet orders; webhooks verified through the provider's API against `webhookId`). */
export const providerDCredentials = z
  .object({
    clientId: z.string().min(8).max(200),
    clientSecret: z.string().min(8).max(200),
    webhookId: z.string().min(4).max(100),
    environment: z.enum(['sandbox', 'live']),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderDCredentials = z.infer<typeof providerDCredentials>;

export type ProviderCredentials =
  | { type: 'provider_a'; value: ProviderACredentials }
  | { type: 'provider_b'; value: ProviderBCredentials }
  | { type: 'provider_c'; value: ProviderCCredentials }
  | { type: 'provider_d'; value: ProviderDCredentials };

export interface CredentialRules {
  /** Data mode of the record: test records take test credentials only, live records live ones. */
  mode: Mode;
  /** In production every API base URL must be https (credentials travel to it). */
  requireHttps: boolean;
  /**
   * Origins a merchant-supplied `apiBaseUrl` may point at. Our servers send credentials to that
   * URL, so outside this list it could be used to reach internal hosts. Absent: any (development).
   */
  allowedApiOrigins?: ReadonlySet<string> | undefined;
}

function parseWith<S extends z.ZodTypeAny>(schema: S, raw: unknown): z.infer<S> {
  const res = schema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    const path = issue?.path.length ? `credentials.${issue.path.join('.')}` : 'credentials';
    throw new ValidationError(`${path}: ${issue?.message ?? 'invalid'}`, { field: path });
  }
  return res.data;
}

function modeMismatch(field: string, mode: Mode): ValidationError {
  return new ValidationError(`credentials.${field} must be a ${mode}-mode credential for a ${mode}-mode provider`, {
    field: `credentials.${field}`,
  });
}

/** Validates a type's credentials (shape, mode consistency, https in production). */
export function parseCredentials(type: ProviderType, raw: unknown, rules: CredentialRules): ProviderCredentials {
  let parsed: ProviderCredentials;
  switch (type) {
    case 'provider_a': {
      const value = parseWith(providerACredentials, raw);
      if (!value.secretKey.startsWith(`sk_${rules.mode}_`)) throw modeMismatch('secretKey', rules.mode);
      parsed = { type, value };
      break;
    }
    case 'provider_b': {
      const value = parseWith(providerBCredentials, raw);
      if (!value.apiKey.startsWith(`${rules.mode}_`)) throw modeMismatch('apiKey', rules.mode);
      parsed = { type, value };
      break;
    }
    case 'provider_c': {
      const value = parseWith(providerCCredentials, raw);
      if ((value.environment === 'live') !== (rules.mode === 'live')) throw modeMismatch('environment', rules.mode);
      parsed = { type, value };
      break;
    }
    case 'provider_d': {
      const value = parseWith(providerDCredentials, raw);
      if ((value.environment === 'live') !== (rules.mode === 'live')) throw modeMismatch('environment', rules.mode);
      parsed = { type, value };
      break;
    }
  }
  const base = parsed.value.apiBaseUrl;
  if (rules.requireHttps && base !== undefined && !base.startsWith('https://')) {
    throw new ValidationError('credentials.apiBaseUrl must be an https URL', { field: 'credentials.apiBaseUrl' });
  }
  if (rules.allowedApiOrigins && base !== undefined && !rules.allowedApiOrigins.has(new URL(base).origin)) {
    throw new ValidationError('credentials.apiBaseUrl is not an allowed provider API host (see PROVIDER_API_BASE_URL_ALLOWLIST)', {
      field: 'credentials.apiBaseUrl',
    });
  }
  return parsed;
}

/** Parses the JSON text of credentials (as sent over gRPC) into a value for {@link parseCredentials}. */
export function credentialsFromJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new ValidationError('credentials must be a JSON object', { field: 'credentials' });
  }
}

const KNOWN_PREFIX = /^(sk_(?:test|live)_|whsec_|test_|live_)/;

/** `sk_test_…f3a9`: the recognisable prefix and the last four characters, never more. */
export function maskSecret(value: string): string {
  const prefix = KNOWN_PREFIX.exec(value)?.[1] ?? '';
  return `${prefix}…${value.slice(-4)}`;
}

/** Hints of every configured credential field; secrets masked, non-secret settings shown as they are. */
export function credentialHints(creds: ProviderCredentials): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(creds.value)) {
    if (typeof value !== 'string') continue;
    out[key] = PLAIN_FIELDS.has(key) ? value : maskSecret(value);
  }
  return out;
}

const PLAIN_FIELDS: ReadonlySet<string> = new Set(['apiBaseUrl', 'environment', 'webhookId', 'clientId']);
