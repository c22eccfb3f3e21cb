import { WorkLoop } from '@paymesh/runtime';
import { backfillBatch, backfillDone } from '../app/dashboard-backfill';
import type { CheckoutDeps } from '../app/deps';

/**
 * Brings transactions stored before the dashboard aggregates existed (or under older rules) into
 * them, after start-up, in the background: batches of transactions by id, resuming from the cursor
 * stored with each batch. Once a pass finished for the current rules it only checks that, hourly.
 * Safe beside live traffic and on several replicas (see backfillBatch).
 */
export class DashboardBackfillWorker {
  private readonly loop: WorkLoop;

  constructor(
    private readonly deps: CheckoutDeps,
    private readonly opts: { batchSize: number; retryMs: number },
  ) {
    const log = deps.logger.child({ component: 'dashboard-backfill' });
    this.loop = new WorkLoop(
      log,
      () => this.pass(),
      opts.retryMs,
      'dashboard aggregates backfill failed; will retry',
      'checkout/dashboard-backfill',
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async pass(): Promise<number> {
    if (await backfillDone(this.deps)) return 3_600_000;
    for (let i = 0; i < 20 && !this.loop.stopping; i++) {
      const batch = await backfillBatch(this.deps, this.opts.batchSize);
      if (batch.done) {
        this.deps.logger.info('dashboard aggregates backfill complete');
        return 3_600_000;
      }
    }
    return 0;
  }
}
