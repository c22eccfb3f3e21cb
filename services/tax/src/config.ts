import { z } from 'zod';
import { envInt, envIntBounded, httpsInProduction, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

/** The live VIES on-the-Web REST API. */
export const VIES_LIVE_URL = 'https://ec.europa.eu/taxation_customs/vies/rest-api';
/** Where the REST API lives under a VIES host (the local sandbox uses the same path). */
export const VIES_REST_PATH = '/taxation_customs/vies/rest-api';
/** The ECB's euro reference rates of the last 90 days (the local sandbox serves the same path). */
export const ECB_RATES_PATH = '/stats/eurofxref/eurofxref-hist-90d.xml';
export const ECB_RATES_LIVE_URL = `https://www.ecb.europa.eu${ECB_RATES_PATH}`;

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

/** The backends tax calls over gRPC: none (see `downstreamAddrsSchema`). */
export const downstream = [] as const;

export const configSchema = backendConfigSchema('tax')
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /**
     * How long a replica uses its cached copy of an organization's rate book before checking the
     * book's revision; bounds how late it sees rate and rule changes made through another replica.
     */
    TAX_RATE_BOOK_CACHE_TTL_MS: envIntBounded(5000, 0, 300_000, 'TAX_RATE_BOOK_CACHE_TTL_MS'),
    /**
     * How long a replica reuses whether an organization's OSS threshold counts as exceeded; bounds
     * how late CalculateTax sees sales crossing the threshold.
     */
    TAX_OSS_FLAG_TTL_MS: envIntBounded(5000, 0, 300_000, 'TAX_OSS_FLAG_TTL_MS'),
    /** Set by the local supervisor when the VIES sandbox runs; outside production it becomes the default VIES_URL. */
    VIES_SANDBOX_URL: httpUrl.optional(),
    /** Base URL of the VIES REST API (`…/taxation_customs/vies/rest-api`). Default: the live service, or the local sandbox outside production. */
    VIES_URL: httpUrl.optional(),
    /** Time a VIES check may take, retries included; past it the buyer's VAT ID counts as unverified. */
    VIES_DEADLINE_MS: envInt(2500).pipe(z.number().int().min(100).max(30_000)),
    /** How long a VIES answer (valid or invalid) is reused for the same VAT ID and requester; 0 = never. */
    VIES_CACHE_TTL_SECONDS: envInt(86_400).pipe(
      z
        .number()
        .int()
        .min(0)
        .max(30 * 86_400),
    ),
    /** After a VIES outage, checks answer `unverified` at once for this long before VIES is tried again. */
    VIES_BREAKER_SECONDS: envInt(30).pipe(z.number().int().min(0).max(3600)),
    /** Set by the local supervisor when the ECB sandbox runs; outside production it becomes the default ECB_RATES_URL. */
    ECB_SANDBOX_URL: httpUrl.optional(),
    /** The ECB reference-rate file fetched (eurofxref XML). Default: the ECB's 90-day history, or the local sandbox's outside production. */
    ECB_RATES_URL: httpUrl.optional(),
    /** Time between two fetches of the ECB rates (one also at start); 0 = never fetch (reports then convert only at rates the caller gives). */
    ECB_RATES_INTERVAL_MS: envInt(3_600_000).refine(
      (n) => n === 0 || (n >= 1000 && n <= 86_400_000),
      'ECB_RATES_INTERVAL_MS must be 0 or from 1000 to 86400000',
    ),
    /** Time one fetch of the ECB rates may take. */
    ECB_RATES_DEADLINE_MS: envInt(30_000).pipe(z.number().int().min(100).max(300_000)),
    /** Longest wait of the ledger rebuild worker between two looks for queued or abandoned jobs. */
    LEDGER_REBUILD_POLL_MS: envIntBounded(5_000, 100, 600_000, 'LEDGER_REBUILD_POLL_MS'),
    /** How long a rebuild worker's claim on a job holds without progress; after it another worker resumes the job. */
    LEDGER_REBUILD_LEASE_MS: envIntBounded(30_000, 5_000, 3_600_000, 'LEDGER_REBUILD_LEASE_MS'),
  })
  .transform((env) => ({
    ...env,
    VIES_URL:
      env.VIES_URL ??
      (env.NODE_ENV !== 'production' && env.VIES_SANDBOX_URL
        ? `${env.VIES_SANDBOX_URL}${VIES_REST_PATH}`
        : VIES_LIVE_URL),
    ECB_RATES_URL:
      env.ECB_RATES_URL ??
      (env.NODE_ENV !== 'production' && env.ECB_SANDBOX_URL
        ? `${env.ECB_SANDBOX_URL}${ECB_RATES_PATH}`
        : ECB_RATES_LIVE_URL),
  }))
  .superRefine(
    httpsInProduction({
      VIES_URL: 'must be an https URL in production',
      ECB_RATES_URL: 'must be an https URL in production',
    }),
  );

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
