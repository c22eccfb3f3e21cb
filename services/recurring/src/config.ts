import { envBool, envInt, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

/** The backends recurring calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['billing'] as const;

export const configSchema = backendConfigSchema('recurring')
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /** Deadline of billing calls (an invoice creation includes the tax engine). */
    BILLING_DEADLINE_MS: envInt(15_000).refine(
      (n) => n >= 500 && n <= 120_000,
      'BILLING_DEADLINE_MS must be from 500 to 120000',
    ),
    /** Deadline of billing's pro forma preview rendering (a PDF through the documents service). */
    BILLING_PDF_DEADLINE_MS: envInt(60_000).refine(
      (n) => n >= 1_000 && n <= 300_000,
      'BILLING_PDF_DEADLINE_MS must be from 1000 to 300000',
    ),
    /**
     * How long a cycle claim protects a run in progress; a claim left by a crashed run is resumed
     * by the first run after it ends. Longer than a cycle's generation (billing calls) takes.
     */
    RECURRING_CLAIM_LEASE_MS: envInt(120_000).refine(
      (n) => n >= 200 && n <= 3_600_000,
      'RECURRING_CLAIM_LEASE_MS must be from 200 to 3600000',
    ),
    /** Test hooks of the process request (`now`, `holdAfter`). Never set in production. */
    RECURRING_TEST_HOOKS: envBool(false),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
