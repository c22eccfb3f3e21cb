import { ConflictError, ErrorCode, newObjectId } from '@paymesh/core';
import type { TaxRecordRebuildJob } from '@paymesh/contracts';
import { activeKeyOf, emptyProgress, jobView, type RebuildJobDoc } from '../domain/rebuild-job';
import { TAX_RECORD_REBUILDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';

/**
 * Queues a rebuild of the organization's ledger (one data mode) and wakes the worker. While a job
 * of the organization and mode is queued or running, that job is answered instead of a second one.
 */
export async function startTaxRecordRebuild(
  deps: TaxDeps,
  key: OrgKey,
  wake: () => void,
): Promise<TaxRecordRebuildJob> {
  const jobs = deps.store.collection<RebuildJobDoc>(TAX_RECORD_REBUILDS);
  const activeKey = activeKeyOf(key.organizationId, key.mode);
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now().toISOString();
    try {
      const job = await jobs.insert({
        id: newObjectId(),
        organizationId: key.organizationId,
        mode: key.mode,
        status: 'queued',
        progress: emptyProgress(),
        attempts: 0,
        activeKey,
        cursor: 0,
        untilSeq: null,
        leaseOwner: null,
        leaseUntil: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        error: null,
        updatedAt: now,
      });
      deps.logger.info(
        { organizationId: key.organizationId, mode: key.mode, jobId: job.id },
        'tax record rebuild queued',
      );
      wake();
      return jobView(job);
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    }
    const active = await jobs.findOne({ activeKey });
    if (active) return jobView(active);
    // The active job finished between the two statements: queue a new one.
    if (attempt >= 3) throw new ConflictError('a rebuild of this ledger is starting; retry');
  }
}
