import { z } from 'zod';
import { envInt, httpsInProduction, loadConfig } from '@paymesh/core';
import { gatewayConfigSchema } from '@paymesh/http';
import { ALL_BACKENDS, downstreamAddrsSchema, grpcSecurityConfigSchema } from '@paymesh/runtime';

/** Every backend: the gateway routes to most and reports each one's gRPC health (documents: health only). */
export const downstream = ALL_BACKENDS;

export const configSchema = gatewayConfigSchema(8081)
  .merge(downstreamAddrsSchema(downstream))
  .merge(grpcSecurityConfigSchema)
  .extend({
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
    /** Deadline of portal document downloads (billing may render a PDF or an e-invoice first). */
    PORTAL_DOCUMENTS_DEADLINE_MS: envInt(25_000),
    /** Key of the HMAC under which one-time codes are stored (at least 32 characters); unset: derived from SECRETS_KEYRING. */
    PORTAL_OTP_SECRET: z.string().min(32, 'PORTAL_OTP_SECRET must be at least 32 characters').optional(),
    /** How long an e-mailed sign-in code stays usable (default 10 minutes). */
    PORTAL_OTP_TTL_SECONDS: envInt(600),
    /** Wrong tries a code takes before it is dead (a new code is needed). */
    PORTAL_OTP_MAX_ATTEMPTS: envInt(5),
    /** Code requests one e-mail address may make per window, known or not (default 5 per 15 minutes). */
    PORTAL_OTP_REQUESTS_PER_EMAIL: envInt(5),
    PORTAL_OTP_REQUEST_WINDOW_SECONDS: envInt(900),
    /** Lifetime of a portal session (bearer) token (default 15 minutes); renewed with the refresh cookie. */
    PORTAL_SESSION_TTL_SECONDS: envInt(900),
    /** Absolute lifetime of a portal sign-in and its refresh cookie (default 24 hours). */
    PORTAL_REFRESH_TTL_SECONDS: envInt(24 * 3600),
  })
  .superRefine(
    httpsInProduction({
      MAIN_FRONTEND_ORIGIN:
        'must be the https origin of the hosted checkout in production (buyer requests come from it)',
    }),
  );

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
