import { z } from 'zod';
import { envInt, ipnTargetsConfigSchema, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

const positiveInt = (def: number) => envInt(def).pipe(z.number().int().min(1));

export const configSchema = backendConfigSchema('notifications-ipn')
  .merge(downstreamAddrsSchema)
  .merge(ipnTargetsConfigSchema)
  .extend({
    /** Delay before attempt 2; attempt 3 follows after twice this. */
    IPN_BACKOFF_BASE_MS: positiveInt(10_000),
    /** Whole-request timeout of one IPN POST. */
    IPN_TIMEOUT_MS: positiveInt(10_000),
    /** Longest pause between two scans for due deliveries. */
    IPN_POLL_INTERVAL_MS: positiveInt(1_000),
    /** Deliveries sent at once by one replica. */
    IPN_CONCURRENCY: positiveInt(8),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
