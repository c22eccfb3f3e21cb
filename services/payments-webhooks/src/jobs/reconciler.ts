import { WorkLoop } from '@paymesh/runtime';
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
export class Reconciler {
  private readonly loop: WorkLoop;

  constructor(
    private readonly deps: PaymentsDeps,
    private readonly opts: ReconcilerOptions,
  ) {
    const log = deps.logger.child({ component: 'reconciler' });
    this.loop = new WorkLoop(
      log,
      () => this.pass(),
      opts.pollIntervalMs,
      'reconciler pass failed; will retry',
      'payments-webhooks/reconciler',
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A full batch: look again at once; else sleep the poll interval. */
  private async pass(): Promise<number> {
    const pass = await reconcilePayments(this.deps, this.opts);
    this.opts.onPass?.(pass);
    return pass.full ? 0 : this.opts.pollIntervalMs;
  }
}
