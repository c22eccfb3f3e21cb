import { afterBatch, jobLoop, type WorkLoop } from '@paymesh/runtime';
import type { PaymentsDeps } from '../app/deps';
import { reconcilePayments, type ReconcilePass } from '../app/reconcile-payments';
import type { ReconcileOptions } from '../domain/reconcile';

export interface ReconcilerOptions extends ReconcileOptions {
  /** Payments looked at per pass. */
  batchSize: number;
  /** Longest sleep between two passes. */
  pollIntervalMs: number;
  /** Called after each pass (tests, metrics). */
  onPass?: (pass: ReconcilePass) => void;
}

/**
 * The in-process reconciler: asks providers about payments still unsettled some time after they
 * started, so a lost webhook never leaves money unrecorded. All state (the due time of each
 * payment's next look) is in the store; several replicas may run it side by side.
 */
export function reconcilerLoop(deps: PaymentsDeps, opts: ReconcilerOptions): WorkLoop {
  const job = {
    process: 'payments-webhooks/reconciler',
    failure: 'reconciler pass failed; will retry',
    retryMs: opts.pollIntervalMs,
  };
  return jobLoop(deps.logger, job, async () => {
    const pass = await reconcilePayments(deps, opts);
    opts.onPass?.(pass);
    return afterBatch(pass, opts.pollIntervalMs);
  });
}
