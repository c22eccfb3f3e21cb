import { jobLoop, type WorkLoop } from '@paymesh/runtime';
import { backfillBatch, backfillDone } from '../app/dashboard-backfill';
import type { CheckoutDeps } from '../app/deps';

/**
 * Brings transactions stored before the dashboard aggregates existed (or under older rules) into
 * them, after start-up, in the background: batches of transactions by id, resuming from the cursor
 * stored with each batch. Once a pass finished for the current rules it only checks that, hourly.
 * Safe beside live traffic and on several replicas (see backfillBatch).
 */
export function dashboardBackfillWorker(deps: CheckoutDeps, opts: { batchSize: number; retryMs: number }): WorkLoop {
  const job = {
    process: 'checkout/dashboard-backfill',
    failure: 'dashboard aggregates backfill failed; will retry',
    retryMs: opts.retryMs,
  };
  return jobLoop(deps.logger, job, async (loop) => {
    if (await backfillDone(deps)) return 3_600_000;
    for (let i = 0; i < 20 && !loop.stopping; i++) {
      const batch = await backfillBatch(deps, opts.batchSize);
      if (batch.done) {
        deps.logger.info('dashboard aggregates backfill complete');
        return 3_600_000;
      }
    }
    return 0;
  });
}
