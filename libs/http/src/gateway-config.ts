import { z } from 'zod';
import { baseConfigSchema, envBool, envInt, secretsConfigSchema } from '@paymesh/core';
import { httpDrainConfigSchema } from './drain';
import { rateLimitConfigSchema } from './rate-limit';

/**
 * What both gateways configure alike: the base and secrets settings, rate limits, draining, where
 * the gateway listens (`port` by default), how large a body it reads, and the buyer portal's
 * system switches and magic-link key (created by gateway-admin, exchanged by gateway-public). Each
 * gateway merges in its backend addresses and gRPC security and extends it with its own settings.
 */
export function gatewayConfigSchema(port: number) {
  return baseConfigSchema
    .merge(secretsConfigSchema)
    .merge(rateLimitConfigSchema)
    .merge(httpDrainConfigSchema)
    .extend({
      HOST: z.string().default('127.0.0.1'),
      PORT: envInt(port),
      BODY_LIMIT_BYTES: envInt(1024 * 1024),
      /** System-level switch of the buyer portal (sign-in and every /portal route; magic links need it). */
      PORTAL_ENABLED: envBool(true),
      /** System-level switch of portal magic links (creation in the Admin API, exchange in gateway-public). */
      PORTAL_MAGIC_LINKS_ENABLED: envBool(true),
      /** Key of portal magic links, shared by both gateways (at least 32 characters); unset: derived from SECRETS_KEYRING. */
      PORTAL_LINK_SECRET: z.string().min(32, 'PORTAL_LINK_SECRET must be at least 32 characters').optional(),
    });
}
