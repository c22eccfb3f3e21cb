import { z } from 'zod';
import { envInt, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

const positiveInt = (def: number) => envInt(def).pipe(z.number().int().min(1));

/** Unset means "decide from NODE_ENV". */
const optionalBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1' || v === 'yes'));

export const configSchema = backendConfigSchema('notifications-ipn')
  .merge(downstreamAddrsSchema)
  .extend({
    /** Delay before attempt 2; attempt 3 follows after twice this. */
    IPN_BACKOFF_BASE_MS: positiveInt(10_000),
    /** Whole-request timeout of one IPN POST. */
    IPN_TIMEOUT_MS: positiveInt(10_000),
    /**
     * Allow loopback/private/link-local targets. Default: true when NODE_ENV is development or
     * test, false in production (SSRF guard on).
     */
    IPN_ALLOW_PRIVATE_TARGETS: optionalBool,
    /** Longest pause between two scans for due deliveries. */
    IPN_POLL_INTERVAL_MS: positiveInt(1_000),
    /** Deliveries sent at once by one replica. */
    IPN_CONCURRENCY: positiveInt(8),
  })
  .transform((c) => ({ ...c, IPN_ALLOW_PRIVATE_TARGETS: c.IPN_ALLOW_PRIVATE_TARGETS ?? c.NODE_ENV !== 'production' }));

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
