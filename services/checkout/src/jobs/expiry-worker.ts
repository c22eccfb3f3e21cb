import { WorkLoop } from '@paymesh/runtime';
import { expireAbandonedTransactions, type ExpiryOptions } from '../app/expire-transactions';
import type { PaymentsDeps } from '../app/payments-deps';

export interface ExpiryWorkerOptions extends ExpiryOptions {
  /** Longest sleep between two passes. */
  pollIntervalMs: number;
}

/**
 * Expires abandoned transactions on a schedule (see expire-transactions.ts). All state is in the
 * store (each transaction's `expireAt`); several replicas may run it side by side.
 */
export class ExpiryWorker {
  private readonly loop: WorkLoop;

  constructor(
    private readonly deps: PaymentsDeps,
    private readonly opts: ExpiryWorkerOptions,
  ) {
    const log = deps.logger.child({ component: 'transaction-expiry' });
    this.loop = new WorkLoop(
      log,
      () => this.pass(),
      opts.pollIntervalMs,
      'transaction expiry pass failed; will retry',
      'checkout/transaction-expiry',
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async pass(): Promise<number> {
    const pass = await expireAbandonedTransactions(this.deps, this.opts);
    return pass.full ? 0 : this.opts.pollIntervalMs;
  }
}
