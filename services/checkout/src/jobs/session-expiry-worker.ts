import { WorkLoop } from '@paymesh/runtime';
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
export class SessionExpiryWorker {
  private readonly loop: WorkLoop;

  constructor(
    private readonly deps: PaymentsDeps,
    private readonly opts: SessionExpiryWorkerOptions,
  ) {
    const log = deps.logger.child({ component: 'session-expiry' });
    this.loop = new WorkLoop(
      log,
      () => this.pass(),
      opts.pollIntervalMs,
      'session expiry pass failed; will retry',
      'checkout/session-expiry',
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A full batch: sweep again at once; else sleep the poll interval. */
  private async pass(): Promise<number> {
    const pass = await expireSessions(this.deps, this.opts);
    return pass.full ? 0 : this.opts.pollIntervalMs;
  }
}
