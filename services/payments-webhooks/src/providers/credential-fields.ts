import { z } from 'zod';
import type { Mode } from '../domain/provider';

/** An API origin (scheme, host, optional port); provider clients take no base path. */
export const apiBaseUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\/[^/?#]+\/?$/.test(u), 'must be an http(s) origin such as https://api.example.com')
  .transform((u) => u.replace(/\/+$/, ''));

/**
 * The strict credentials schema of a provider type: its own fields followed by the optional
 * `apiBaseUrl` every type takes; unknown fields are refused.
 */
export function credentialsSchema<Fields extends z.ZodRawShape>(fields: Fields) {
  return z.object({ ...fields, apiBaseUrl: apiBaseUrl.optional() }).strict();
}

/** The provider environment a set of credentials belongs to. */
export const environment = z.enum(['sandbox', 'live']);

/** Credentials that name the provider environment they belong to. */
export interface EnvironmentCredentials {
  readonly environment: z.infer<typeof environment>;
}

/** `environment` when credentials of the other environment are given to a record of `mode` (null when they match). */
export function environmentMismatch(credentials: EnvironmentCredentials, mode: Mode): 'environment' | null {
  return (credentials.environment === 'live') !== (mode === 'live') ? 'environment' : null;
}
