import { afterBatch, jobLoop, type WorkLoop } from '@paymesh/runtime';
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
export function expiryWorker(deps: PaymentsDeps, opts: ExpiryWorkerOptions): WorkLoop {
  const job = {
    process: 'checkout/transaction-expiry',
    failure: 'transaction expiry pass failed; will retry',
    retryMs: opts.pollIntervalMs,
  };
  return jobLoop(deps.logger, job, async () =>
    afterBatch(await expireAbandonedTransactions(deps, opts), opts.pollIntervalMs),
  );
}
