import { isIP } from 'node:net';
import { z } from 'zod';
import {
  envInt,
  envIntBounded,
  httpsInProduction,
  ipnTargetsConfigSchema,
  loadConfig,
  secretsConfigSchema,
} from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema, envList } from '@paymesh/runtime';

/** `ip`, `ip:port` or `[ipv6]:port`, as `dns.Resolver#setServers` takes them. */
function isDnsServer(s: string): boolean {
  const v6 = /^\[(.+)\](?::(\d{1,5}))?$/.exec(s);
  if (v6) return isIP(v6[1] ?? '') === 6;
  if (isIP(s) !== 0) return true;
  const m = /^(.+):(\d{1,5})$/.exec(s);
  return !!m && isIP(m[1] ?? '') === 4 && Number(m[2]) > 0 && Number(m[2]) < 65536;
}

/** Unset or empty: undefined (the default depends on NODE_ENV); otherwise true/false/1/0/yes/no. */
const optionalBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1' || v === 'yes'));

/** The backends checkout calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['payments-webhooks', 'tax'] as const;

export const configSchema = backendConfigSchema('checkout')
  .merge(secretsConfigSchema)
  .merge(downstreamAddrsSchema(downstream))
  .merge(ipnTargetsConfigSchema)
  .extend({
    /** Comma-separated DNS servers for custom-domain CNAME checks; empty = the system resolvers. */
    DNS_RESOLVERS: envList().refine(
      (list) => list.every(isDnsServer),
      'DNS_RESOLVERS must be a comma-separated list of ip or ip:port',
    ),
    DNS_TIMEOUT_MS: envInt(1500),
    DNS_TRIES: envInt(2),
    /** Host name a merchant's custom domain must CNAME to (the hosted checkout's host). */
    CUSTOM_DOMAIN_CNAME_TARGET: z
      .string()
      .default('checkout.paymesh.example')
      .refine(
        (v) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+\.?$/i.test(v),
        'must be a host name',
      ),
    /**
     * Hosted checkout frontend; payment URLs are `<this>/c/<sessionPublicId>`. Default: the page
     * gateway-public serves on its default local address.
     */
    CHECKOUT_FRONTEND_URL: z.string().url().default('http://127.0.0.1:8081'),
    /** Lifetime of a checkout session created without `expiresAt`. */
    CHECKOUT_SESSION_TTL_HOURS: envIntBounded(24, 1, 3120, 'CHECKOUT_SESSION_TTL_HOURS'),
    /** A buyer transaction still pending this long is abandoned: its provider payment is cancelled and it expires (-2, with IPN). */
    TRANSACTION_ABANDON_AFTER_MS: envIntBounded(
      24 * 3_600_000,
      100,
      130 * 24 * 3_600_000,
      'TRANSACTION_ABANDON_AFTER_MS',
    ),
    /** Expiry worker pass interval, and the pause before retrying a transaction whose provider did not cancel. */
    EXPIRY_INTERVAL_MS: envIntBounded(60_000, 10, 3_600_000, 'EXPIRY_INTERVAL_MS'),
    /** Longest pause between two expiry attempts of one transaction (the pause doubles per refused or failed attempt from EXPIRY_INTERVAL_MS). */
    EXPIRY_RETRY_MAX_MS: envIntBounded(6 * 3_600_000, 10, 7 * 24 * 3_600_000, 'EXPIRY_RETRY_MAX_MS'),
    /** Session sweep pass interval: pending checkout sessions past `expiresAt` are stored as expired and their pending transaction abandoned. */
    SESSION_EXPIRY_INTERVAL_MS: envIntBounded(60_000, 10, 3_600_000, 'SESSION_EXPIRY_INTERVAL_MS'),
    /** Abandoned transactions expired per pass (also: sessions swept per pass). */
    EXPIRY_BATCH_SIZE: envIntBounded(50, 1, 1000, 'EXPIRY_BATCH_SIZE'),
    /** Lifetime of a handoff token. */
    HANDOFF_TOKEN_TTL_SECONDS: envIntBounded(600, 30, 86_400, 'HANDOFF_TOKEN_TTL_SECONDS'),
    /** `http://` IPN targets; default true except in production. */
    ALLOW_HTTP_IPN: optionalBool,
    /** Deadline of calls that reach a payment provider (CreatePayment, CancelPayment). */
    PAYMENTS_DEADLINE_MS: envIntBounded(15_000, 1_000, 120_000, 'PAYMENTS_DEADLINE_MS'),
    /**
     * Deadline of the tax settings lookup behind the public checkout view (only for sites set to
     * `vies`); on expiry the view shows `format` instead of waiting.
     */
    TAX_SETTINGS_DEADLINE_MS: envIntBounded(2_000, 100, 30_000, 'TAX_SETTINGS_DEADLINE_MS'),
    /**
     * Deadline of tax CalculateTax (tax preview, transaction create, recalculation); it includes the
     * tax service's VIES check. On expiry a preview is 503 and a payment goes on without tax when
     * its charge does not depend on it.
     */
    TAX_DEADLINE_MS: envIntBounded(4_000, 100, 30_000, 'TAX_DEADLINE_MS'),
  })
  .superRefine(
    httpsInProduction({
      CHECKOUT_FRONTEND_URL:
        'must be the public https URL of the hosted checkout in production (payment URLs point at it)',
    }),
  )
  .transform((c) => ({
    ...c,
    ALLOW_HTTP_IPN: c.ALLOW_HTTP_IPN ?? c.NODE_ENV !== 'production',
  }));

export type Config = z.infer<typeof configSchema>;
export const config = loadConfig(configSchema, process.env);
