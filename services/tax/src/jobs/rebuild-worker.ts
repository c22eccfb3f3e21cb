import { randomBytes } from 'node:crypto';
import type { Logger } from '@paymesh/core';
import { WorkLoop } from '@paymesh/runtime';
import type { TaxDeps } from '../app/deps';
import { claimTaxRecordRebuild, runTaxRecordRebuild } from '../app/run-tax-record-rebuild';

export interface RebuildWorkerOptions {
  /** Longest sleep between two looks for work (jobs queued by other replicas, lapsed claims). */
  pollIntervalMs: number;
  /** How long a claim holds without a checkpoint. */
  leaseMs: number;
  batchSize: number;
}

/**
 * The in-process rebuild worker: runs one job at a time, taking queued jobs and jobs whose worker
 * stopped renewing its claim (a crash resumes from the last checkpoint). All state is in the store,
 * so several replicas may run it side by side.
 */
export class RebuildWorker {
  private readonly deps: TaxDeps;
  private readonly opts: RebuildWorkerOptions;
  private readonly log: Logger;
  private readonly workerId = `tax-${randomBytes(6).toString('hex')}`;
  private readonly loop: WorkLoop;

  constructor(deps: TaxDeps, opts: RebuildWorkerOptions) {
    this.deps = deps;
    this.opts = opts;
    this.log = deps.logger.child({ component: 'tax-record-rebuild', workerId: this.workerId });
    this.loop = new WorkLoop(
      this.log,
      () => this.pass(),
      opts.pollIntervalMs,
      'tax record rebuild pass failed; will retry',
      'tax/tax-record-rebuild',
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for work now (a job was just queued). */
  wake(): void {
    this.loop.wake();
  }

  /** Stops after the current batch; a job left unfinished is given up for the next worker to resume. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs one claimable job, if any; then looks again at once, else after the poll interval. */
  private async pass(): Promise<number> {
    const job = await claimTaxRecordRebuild(this.deps, { workerId: this.workerId, leaseMs: this.opts.leaseMs });
    if (!job) return this.opts.pollIntervalMs;
    await runTaxRecordRebuild(this.deps, job, {
      ...this.opts,
      workerId: this.workerId,
      shouldStop: () => this.loop.stopping,
    });
    return 0;
  }
}
