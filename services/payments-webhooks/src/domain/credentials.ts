import type { z } from 'zod';
import { ValidationError } from '@paymesh/core';
import type { Mode, ProviderType } from './provider';
import { moduleOf, type ProviderCredentials } from '../providers/registry';

export type { ProviderCredentials } from '../providers/registry';

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

function parseWith<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown): T {
  const res = schema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    const path = issue?.path.length ? `credentials.${issue.path.join('.')}` : 'credentials';
    throw new ValidationError(`${path}: ${issue?.message ?? 'invalid'}`, { field: path });
  }
  return res.data;
}

/** Validates a type's credentials with its module (shape, mode consistency, https in production). */
export function parseCredentials(type: ProviderType, raw: unknown, rules: CredentialRules): ProviderCredentials {
  const module = moduleOf(type);
  const value = parseWith(module.credentials, raw);
  const wrongMode = module.modeMismatch(value, rules.mode);
  if (wrongMode !== null) {
    throw new ValidationError(
      `credentials.${wrongMode} must be a ${rules.mode}-mode credential for a ${rules.mode}-mode provider`,
      {
        field: `credentials.${wrongMode}`,
      },
    );
  }
  const base = value.apiBaseUrl;
  if (rules.requireHttps && base !== undefined && !base.startsWith('https://')) {
    throw new ValidationError('credentials.apiBaseUrl must be an https URL', { field: 'credentials.apiBaseUrl' });
  }
  if (rules.allowedApiOrigins && base !== undefined && !rules.allowedApiOrigins.has(new URL(base).origin)) {
    throw new ValidationError(
      'credentials.apiBaseUrl is not an allowed provider API host (see PROVIDER_API_BASE_URL_ALLOWLIST)',
      {
        field: 'credentials.apiBaseUrl',
      },
    );
  }
  return { type, value };
}

/** Parses the JSON text of credentials (as sent over gRPC) into a value for {@link parseCredentials}. */
export function credentialsFromJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new ValidationError('credentials must be a JSON object', { field: 'credentials' });
  }
}

/** Hints of every configured credential field; secrets masked by their module, settings shown as they are. */
export function credentialHints(creds: ProviderCredentials): Record<string, string> {
  const module = moduleOf(creds.type);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(creds.value)) {
    if (typeof value !== 'string') continue;
    out[key] = module.hint(key, value) ?? value;
  }
  return out;
}
