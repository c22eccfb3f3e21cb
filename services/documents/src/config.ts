import { envInt, loadConfig } from '@paymesh/core';
import { backendConfigSchema, downstreamAddrsSchema } from '@paymesh/runtime';
import { z } from 'zod';

/** The backends documents calls over gRPC: none (see `downstreamAddrsSchema`). */
export const downstream = [] as const;

export const configSchema = backendConfigSchema('documents')
  .merge(downstreamAddrsSchema(downstream))
  .extend({
    /** Chromium binary that renders PDFs (Debian's `chromium` package). */
    CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
    /** Pages rendering in parallel. */
    PDF_PAGES: envInt(2),
    /** Renders waiting for a page at most; more are answered UNAVAILABLE. */
    PDF_MAX_QUEUE: envInt(32),
    PDF_TIMEOUT_MS: envInt(20_000),
  });

export type Config = typeof config;
export const config = loadConfig(configSchema, process.env);
