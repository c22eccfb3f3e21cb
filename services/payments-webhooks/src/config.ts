import { z } from 'zod';
import { envInt, httpsInProduction, loadConfig, secretsConfigSchema } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema, envList } from '@paymesh/runtime';

const STRIPE_API = 'https://api.stripe.com';
const MOLLIE_API = 'https://api.mollie.com';
const GOCARDLESS_API = 'https://api.gocardless.com';
/** The wallet provider's live API origin (records in sandbox mode set their own or use the local sandbox). */
const PAYPAL_API = 'https://api-m.paypal.com';
const CREDENTIALS_TRAVEL = 'must be an https URL in production (credentials travel to it)';

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

const httpOrigin = z
  .string()
  .url()
  .refine((u) => /^https?:\/\/[^/?#]+\/?$/.test(u), 'must be an http(s) origin such as https://api.example.com')
  .transform((u) => u.replace(/\/+$/, ''));

/** The backends payments-webhooks calls over gRPC: none (see `downstreamAddrsSchema`). */
export const downstream = [] as const;

export const configSchema = backendConfigSchema('payments-webhooks')
  .merge(downstreamAddrsSchema(downstream))
  .merge(secretsConfigSchema)
  .extend({
    /** Root URL of gateway-public as providers reach it; webhook endpoints are `<root>/hooks/<type>/<id>`. */
    PUBLIC_ROOT_URL: httpUrl.default('http://127.0.0.1:8081'),
    /** Set by the supervisor when the local provider_a sandbox runs; becomes the default API base URL. */
    PROVIDER_A_SANDBOX_URL: httpOrigin.optional(),
    /** Default provider_a API base URL for records without their own `apiBaseUrl`. */
    PROVIDER_A_API_BASE_URL: httpOrigin.optional(),
    /**
     * Comma-separated origins (https://host[:port]) merchants may give as a provider record's
     * `apiBaseUrl`, besides the configured default. Enforced in production, and elsewhere when set.
     */
    PROVIDER_API_BASE_URL_ALLOWLIST: envList().pipe(z.array(httpOrigin)),
    /** Set by the supervisor when the local provider_b sandbox runs; becomes the default API base URL. */
    PROVIDER_B_SANDBOX_URL: httpOrigin.optional(),
    /** Default provider_b API base URL for records without their own `apiBaseUrl`. */
    PROVIDER_B_API_BASE_URL: httpOrigin.optional(),
    /** Per-request timeout of provider_b API calls. */
    PROVIDER_B_TIMEOUT_MS: envInt(8000).pipe(z.number().int().min(100).max(60_000)),
    /** Retries of failed provider_b calls (always with the same Idempotency-Key). */
    PROVIDER_B_MAX_NETWORK_RETRIES: envInt(1).pipe(z.number().int().min(0).max(5)),
    /** Set by the supervisor when the local provider_c sandbox runs; becomes the default API base URL. */
    PROVIDER_C_SANDBOX_URL: httpOrigin.optional(),
    /** Default provider_c API base URL for records without their own `apiBaseUrl`. */
    PROVIDER_C_API_BASE_URL: httpOrigin.optional(),
    /** Per-request timeout of provider_c API calls. */
    PROVIDER_C_TIMEOUT_MS: envInt(8000).pipe(z.number().int().min(100).max(60_000)),
    /** Retries of failed provider_c calls (always with the same Idempotency-Key). */
    PROVIDER_C_MAX_NETWORK_RETRIES: envInt(1).pipe(z.number().int().min(0).max(5)),
    /** Set by the supervisor when the local provider_d sandbox runs; becomes the default API base URL. */
    PROVIDER_D_SANDBOX_URL: httpOrigin.optional(),
    /** Default provider_d API base URL for records without their own `apiBaseUrl`. */
    PROVIDER_D_API_BASE_URL: httpOrigin.optional(),
    /** Per-request timeout of provider_d API calls. */
    PROVIDER_D_TIMEOUT_MS: envInt(8000).pipe(z.number().int().min(100).max(60_000)),
    /** Retries of failed provider_d calls (always with the same PayPal-Request-Id). */
    PROVIDER_D_MAX_NETWORK_RETRIES: envInt(1).pipe(z.number().int().min(0).max(5)),
    /** How far a provider_d transmission time may be from its receipt before the delivery is refused as stale. */
    PROVIDER_D_WEBHOOK_TOLERANCE_MS: envInt(300_000).pipe(z.number().int().min(1000).max(3_600_000)),
    /** Per-request timeout of provider_a API calls. */
    PROVIDER_A_TIMEOUT_MS: envInt(8000).pipe(z.number().int().min(100).max(60_000)),
    /** SDK retries of failed provider_a calls (always with the same Idempotency-Key). */
    PROVIDER_A_MAX_NETWORK_RETRIES: envInt(1).pipe(z.number().int().min(0).max(5)),
    /** Age of a still unsettled payment at which the reconciler first asks its provider. */
    RECONCILE_MIN_PENDING_AGE_MS: envInt(15 * 60_000).pipe(z.number().int().min(0)),
    /** Reconciler pass interval, and the first pause between two looks at one payment (then doubling, up to 16 times). */
    RECONCILE_INTERVAL_MS: envInt(60_000).pipe(z.number().int().min(10)),
    /** Payments looked at per pass. */
    RECONCILE_BATCH_SIZE: envInt(50).pipe(z.number().int().min(1).max(1000)),
    /** Age after which a payment is left to webhooks alone. */
    RECONCILE_MAX_AGE_MS: envInt(7 * 24 * 3_600_000).pipe(z.number().int().min(1)),
  })
  .transform((env) => ({
    ...env,
    PROVIDER_A_API_BASE_URL: env.PROVIDER_A_API_BASE_URL ?? env.PROVIDER_A_SANDBOX_URL ?? STRIPE_API,
    PROVIDER_B_API_BASE_URL: env.PROVIDER_B_API_BASE_URL ?? env.PROVIDER_B_SANDBOX_URL ?? MOLLIE_API,
    PROVIDER_C_API_BASE_URL: env.PROVIDER_C_API_BASE_URL ?? env.PROVIDER_C_SANDBOX_URL ?? GOCARDLESS_API,
    PROVIDER_D_API_BASE_URL: env.PROVIDER_D_API_BASE_URL ?? env.PROVIDER_D_SANDBOX_URL ?? PAYPAL_API,
  }))
  .superRefine(
    httpsInProduction({
      PROVIDER_A_API_BASE_URL: CREDENTIALS_TRAVEL,
      PROVIDER_B_API_BASE_URL: CREDENTIALS_TRAVEL,
      PROVIDER_C_API_BASE_URL: CREDENTIALS_TRAVEL,
      PROVIDER_D_API_BASE_URL: CREDENTIALS_TRAVEL,
      PUBLIC_ROOT_URL:
        'must be the public https root URL of gateway-public in production (providers deliver webhooks to it)',
    }),
  );

/** Origins a record's `apiBaseUrl` may use, or undefined when any is accepted (development without a list). */
export function allowedApiOrigins(c: {
  NODE_ENV: string;
  PROVIDER_A_API_BASE_URL: string;
  PROVIDER_B_API_BASE_URL?: string;
  PROVIDER_C_API_BASE_URL?: string;
  PROVIDER_D_API_BASE_URL?: string;
  PROVIDER_API_BASE_URL_ALLOWLIST: string[];
}): ReadonlySet<string> | undefined {
  if (c.NODE_ENV !== 'production' && c.PROVIDER_API_BASE_URL_ALLOWLIST.length === 0) return undefined;
  const defaults = [
    c.PROVIDER_A_API_BASE_URL,
    ...[c.PROVIDER_B_API_BASE_URL, c.PROVIDER_C_API_BASE_URL, c.PROVIDER_D_API_BASE_URL].filter(
      (u): u is string => u !== undefined,
    ),
  ];
  return new Set([...defaults, ...c.PROVIDER_API_BASE_URL_ALLOWLIST].map((u) => new URL(u).origin));
}

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
