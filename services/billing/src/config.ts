import { z } from 'zod';
import { envIntBounded, loadConfig, secretsConfigSchema } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';

/** The backends billing calls over gRPC: the only addresses its config has (see `downstreamAddrsSchema`). */
export const downstream = ['tax', 'checkout', 'notifications-ipn', 'documents'] as const;

export const configSchema = backendConfigSchema('billing')
  .merge(secretsConfigSchema)
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /** Deadline of tax CalculateTax and GetTaxSettings calls (drafts, issue); includes a VIES check. */
    TAX_DEADLINE_MS: envIntBounded(4_000, 100, 30_000, 'TAX_DEADLINE_MS'),
    /** Deadline of documents calls (a PDF rendering on a busy renderer waits for a free page). */
    DOCUMENTS_DEADLINE_MS: envIntBounded(20_000, 1_000, 120_000, 'DOCUMENTS_DEADLINE_MS'),
    /**
     * The GDPdU DTD the tax-audit export ships; default: the copy the build puts into
     * `services/billing/dist/standards/` (docs/datev-gdpdu.md).
     */
    GDPDU_DTD_PATH: z.string().min(1).optional(),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
