import type { Logger } from '@paymesh/core';
import { WorkLoop } from './work-loop';

/** A background job of a service, as its loop logs it and the audit trail names it. */
export interface Job {
  /** Automatic process of the audit trail, `<service>/<job>`; the job part is the log component. */
  process: string;
  /** Logged when a pass fails (it is retried after `retryMs`). */
  failure: string;
  retryMs: number;
}

/**
 * The WorkLoop of a service's background job: its passes log as the job's component and act as its
 * process. `pass` gets the loop (long passes check `stopping`) and answers how long to sleep.
 */
export function jobLoop(logger: Logger, job: Job, pass: (loop: WorkLoop) => Promise<number>): WorkLoop {
  const component = job.process.slice(job.process.indexOf('/') + 1);
  const loop: WorkLoop = new WorkLoop(
    logger.child({ component }),
    () => pass(loop),
    job.retryMs,
    job.failure,
    job.process,
  );
  return loop;
}

/** The sleep after a batch pass: none after a full batch (more may be waiting), else the poll interval. */
export function afterBatch(batch: { full: boolean }, pollIntervalMs: number): number {
  return batch.full ? 0 : pollIntervalMs;
}
