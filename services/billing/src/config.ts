import { z } from 'zod';
import { envInt, loadConfig, secretsConfigSchema } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

/** The backends billing calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['tax', 'checkout', 'notifications-ipn', 'documents'] as const;

export const configSchema = backendConfigSchema('billing')
  .merge(secretsConfigSchema)
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /** Deadline of tax CalculateTax and GetTaxSettings calls (drafts, issue); includes a VIES check. */
    TAX_DEADLINE_MS: envInt(4_000).refine((n) => n >= 100 && n <= 30_000, 'TAX_DEADLINE_MS must be from 100 to 30000'),
    /** Deadline of documents calls (a PDF rendering on a busy renderer waits for a free page). */
    DOCUMENTS_DEADLINE_MS: envInt(20_000).refine(
      (n) => n >= 1_000 && n <= 120_000,
      'DOCUMENTS_DEADLINE_MS must be from 1000 to 120000',
    ),
    /**
     * The GDPdU DTD the tax-audit export ships; default: the copy the build puts into
     * `services/billing/dist/standards/` (docs/datev-gdpdu.md).
     */
    GDPDU_DTD_PATH: z.string().min(1).optional(),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
