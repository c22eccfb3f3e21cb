import { envBool, envIntBounded, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

/** The backends recurring calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['billing'] as const;

export const configSchema = backendConfigSchema('recurring')
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /** Deadline of billing calls (an invoice creation includes the tax engine). */
    BILLING_DEADLINE_MS: envIntBounded(15_000, 500, 120_000, 'BILLING_DEADLINE_MS'),
    /** Deadline of billing's pro forma preview rendering (a PDF through the documents service). */
    BILLING_PDF_DEADLINE_MS: envIntBounded(60_000, 1_000, 300_000, 'BILLING_PDF_DEADLINE_MS'),
    /**
     * How long a cycle claim protects a run in progress; a claim left by a crashed run is resumed
     * by the first run after it ends. Longer than a cycle's generation (billing calls) takes.
     */
    RECURRING_CLAIM_LEASE_MS: envIntBounded(120_000, 200, 3_600_000, 'RECURRING_CLAIM_LEASE_MS'),
    /** Test hooks of the process request (`now`, `holdAfter`). Never set in production. */
    RECURRING_TEST_HOOKS: envBool(false),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
