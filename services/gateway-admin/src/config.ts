import { z } from 'zod';
import {
  assertNotPublishedSecret,
  ConfigError,
  devSecretsAllowed,
  envBool,
  envInt,
  loadConfig,
  type DevSecretsGate,
} from '@paymesh/core';
import { gatewayConfigSchema } from '@paymesh/http';
import { ALL_BACKENDS, downstreamAddrsSchema, envList, grpcSecurityConfigSchema } from '@paymesh/runtime';

/**
 * Published development JWT key: used only with NODE_ENV development/test and PAYMESH_DEV_DEFAULTS=true;
 * everywhere else JWT_SECRET must be set (and must not be this value), or the gateway refuses to start.
 */
export const DEV_JWT_SECRET = 'paymesh-development-only-jwt-secret-do-not-use';

/** Every backend: the gateway routes to each one and reports each one's gRPC health. */
export const downstream = ALL_BACKENDS;

export const configSchema = gatewayConfigSchema(8080)
  .merge(downstreamAddrsSchema(downstream))
  .merge(grpcSecurityConfigSchema)
  .extend({
    /** Root system key installed at start-up (sk_live_<keyId>.<secret>); lets `pnpm bootstrap` run. */
    SYSTEM_API_KEY: z.string().optional(),
    /** Licence state given to organizations created without an explicit one. */
    DEFAULT_LICENSE_STATE: z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']).default('ACTIVE'),
    /** Serve interactive API docs at /api/v1/docs/index.html. */
    API_DOCS_ENABLED: envBool(true),
    /**
     * Deadline of billing calls that render a document (PDF download, regenerate, e-mail with the
     * PDF attached); longer than billing's own DOCUMENTS_DEADLINE_MS (20 s) so billing answers first.
     */
    DOCUMENTS_DEADLINE_MS: envInt(25_000).refine(
      (n) => n >= 1_000 && n <= 180_000,
      'DOCUMENTS_DEADLINE_MS must be from 1000 to 180000',
    ),
    /** HS256 key of dashboard access tokens, at least 32 characters; shared by all replicas. */
    JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
    /** Lifetime of a dashboard access JWT (default 15 minutes). */
    ACCESS_TOKEN_TTL_SECONDS: envInt(900),
    /** Absolute lifetime of a dashboard session / refresh cookie (default 12 hours). */
    REFRESH_TOKEN_TTL_SECONDS: envInt(12 * 3600),
    /** How long a WebAuthn challenge from POST /auth stays usable (default 5 minutes). */
    WEBAUTHN_CHALLENGE_TTL_SECONDS: envInt(300),
    /** How long a new user's enrollment token stays usable (default 7 days). */
    ENROLLMENT_TTL_SECONDS: envInt(7 * 24 * 3600),
    /** WebAuthn relying party: the dashboard's host name. */
    WEBAUTHN_RP_ID: z.string().default('localhost'),
    WEBAUTHN_RP_NAME: z.string().default('Paymesh'),
    /** Comma-separated origins the dashboard is served from. */
    WEBAUTHN_ORIGINS: envList('http://localhost:3000,http://localhost:8080'),
    /** Mark the refresh cookie Secure (turn off only for plain-http development). */
    AUTH_COOKIE_SECURE: envBool(true),
    /** The portal page of gateway-public; magic links point at `<PORTAL_PUBLIC_URL>/magic-link#token=<token>`. */
    PORTAL_PUBLIC_URL: z
      .string()
      .url()
      .default('http://localhost:8081/portal')
      .transform((u) => u.replace(/\/+$/, '')),
    /** Lifetime of a magic link when the request names none; a request may only shorten it. */
    PORTAL_MAGIC_LINK_TTL_MINUTES: envInt(60).refine((n) => n >= 1, 'PORTAL_MAGIC_LINK_TTL_MINUTES must be at least 1'),
    /** Longest lifetime of a magic link; the default is capped to it too. */
    PORTAL_MAGIC_LINK_MAX_TTL_MINUTES: envInt(24 * 60).refine(
      (n) => n >= 1,
      'PORTAL_MAGIC_LINK_MAX_TTL_MINUTES must be at least 1',
    ),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);

/** The JWT key: the configured one, or the published development key when explicitly allowed. */
export function resolveJwtKey(c: DevSecretsGate & { JWT_SECRET?: string | undefined }): Uint8Array {
  if (c.JWT_SECRET) {
    assertNotPublishedSecret('JWT_SECRET', c.JWT_SECRET === DEV_JWT_SECRET, c);
    return new TextEncoder().encode(c.JWT_SECRET);
  }
  if (!devSecretsAllowed(c)) {
    throw new ConfigError(
      'JWT_SECRET must be set (local runs may opt into the development key with NODE_ENV=development and PAYMESH_DEV_DEFAULTS=true)',
    );
  }
  return new TextEncoder().encode(DEV_JWT_SECRET);
}
