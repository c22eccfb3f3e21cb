import { afterBatch, jobLoop, type WorkLoop } from '@paymesh/runtime';
import { expireSessions } from '../app/expire-sessions';
import type { ExpiryOptions } from '../app/expire-transactions';
import type { PaymentsDeps } from '../app/payments-deps';

export interface SessionExpiryWorkerOptions extends ExpiryOptions {
  /** Longest sleep between two passes. */
  pollIntervalMs: number;
}

/**
 * Sweeps checkout sessions past their expiry on a schedule (see expire-sessions.ts). All state is
 * in the store (each session's status and `expiresAt`); several replicas may run it side by side.
 */
export function sessionExpiryWorker(deps: PaymentsDeps, opts: SessionExpiryWorkerOptions): WorkLoop {
  const job = {
    process: 'checkout/session-expiry',
    failure: 'session expiry pass failed; will retry',
    retryMs: opts.pollIntervalMs,
  };
  return jobLoop(deps.logger, job, async () => afterBatch(await expireSessions(deps, opts), opts.pollIntervalMs));
}
