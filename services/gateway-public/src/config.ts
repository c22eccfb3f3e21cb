import { z } from 'zod';
import { baseConfigSchema, envInt, loadConfig } from '@paymesh/core';
import { rateLimitConfigSchema } from '@paymesh/http';
import { downstreamAddrsSchema, grpcSecurityConfigSchema } from '@paymesh/runtime';

export const configSchema = baseConfigSchema.merge(downstreamAddrsSchema)
  .merge(grpcSecurityConfigSchema).merge(rateLimitConfigSchema).extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: envInt(8081),
  BODY_LIMIT_BYTES: envInt(1024 * 1024),
  /**
   * Origin of the main (hosted) checkout frontend, always allowed as Origin/Referer of buyer
   * requests besides each site's frontend domains. Default: this gateway's default local address,
   * where it serves the hosted checkout page itself.
   */
  MAIN_FRONTEND_ORIGIN: z
    .string()
    .url()
    .default('http://127.0.0.1:8081')
    .transform((u) => new URL(u).origin),
  /** Deadline of calls that reach a payment provider through checkout (create, cancel). */
  PAYMENT_CALL_DEADLINE_MS: envInt(20_000),
  /** Deadline of the tax preview (checkout asks the tax service, which may ask VIES). */
  TAX_CALL_DEADLINE_MS: envInt(8_000),
}).superRefine((c, ctx) => {
  if (c.NODE_ENV === 'production' && !c.MAIN_FRONTEND_ORIGIN.startsWith('https://')) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['MAIN_FRONTEND_ORIGIN'],
      message: 'must be the https origin of the hosted checkout in production (buyer requests come from it)',
    });
  }
});

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
