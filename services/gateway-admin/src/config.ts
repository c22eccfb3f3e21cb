import { z } from 'zod';
import { baseConfigSchema, envBool, envInt, loadConfig, secretsConfigSchema } from '@paymesh/core';
import { downstreamAddrsSchema } from '@paymesh/runtime';

export const DOWNSTREAM = ['checkout', 'payments-webhooks', 'billing', 'tax', 'recurring', 'documents', 'notifications-ipn'] as const;

export const configSchema = baseConfigSchema
  .merge(secretsConfigSchema)
  .merge(downstreamAddrsSchema)
  .extend({
    HOST: z.string().default('127.0.0.1'),
    PORT: envInt(8080),
    /** Root system key installed at start-up (sk_live_<keyId>.<secret>); lets `pnpm bootstrap` run. */
    SYSTEM_API_KEY: z.string().optional(),
    /** Licence state given to organizations created without an explicit one. */
    DEFAULT_LICENSE_STATE: z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']).default('ACTIVE'),
    /** Serve interactive API docs at /api/v1/docs/index.html. */
    API_DOCS_ENABLED: envBool(true),
    BODY_LIMIT_BYTES: envInt(1024 * 1024),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
