import { isVersionConflict } from '@paymesh/store';
import { isClaimable, MAX_REBUILD_ATTEMPTS, type RebuildJobDoc, type RebuildProgress } from '../domain/rebuild-job';
import type { SourceEventDoc } from '../domain/source-event';
import { TAX_RECORD_REBUILDS, TAX_SOURCE_EVENTS } from '../store/collections';
import type { TaxDeps } from './deps';
import { deriveSourceEvent, markSourceFailed } from './derive-source-event';

export interface RebuildRunOptions {
  workerId: string;
  /** How long a claim holds without a checkpoint; a job whose claim lapsed is resumed by any worker. */
  leaseMs: number;
  /** Source events derived between two checkpoints. */
  batchSize: number;
  /** Asked after each batch: true stops the run (the job stays running and is resumed later). */
  shouldStop: () => boolean;
}

const jobsOf = (deps: TaxDeps) => deps.store.collection<RebuildJobDoc>(TAX_RECORD_REBUILDS);
const leaseFrom = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

/**
 * Claims the oldest job that is queued or whose worker stopped renewing its claim (crashed, or
 * stopped mid-run) with compare-and-set; a job interrupted {@link MAX_REBUILD_ATTEMPTS} times is
 * marked failed instead. Null when there is nothing to do.
 */
export async function claimTaxRecordRebuild(
  deps: TaxDeps,
  opts: Pick<RebuildRunOptions, 'workerId' | 'leaseMs'>,
): Promise<RebuildJobDoc | null> {
  const jobs = jobsOf(deps);
  const { items } = await jobs.find({ status: { $in: ['queued', 'running'] } }, { sort: { createdAt: 1 }, limit: 20 });
  for (const job of items) {
    const now = deps.clock.now();
    if (!isClaimable(job, now.toISOString())) continue;
    try {
      if (job.attempts >= MAX_REBUILD_ATTEMPTS) {
        await jobs.replace({
          ...job,
          status: 'failed',
          error: `interrupted ${job.attempts} times${job.error ? ` (last error: ${job.error})` : ''}; start a new rebuild`,
          activeKey: null,
          leaseOwner: null,
          leaseUntil: null,
          finishedAt: now.toISOString(),
          updatedAt: now.toISOString(),
        });
        deps.logger.error(
          { jobId: job.id, organizationId: job.organizationId, attempts: job.attempts },
          'tax record rebuild given up',
        );
        continue;
      }
      const claimed = await jobs.replace({
        ...job,
        status: 'running',
        attempts: job.attempts + 1,
        leaseOwner: opts.workerId,
        leaseUntil: leaseFrom(now, opts.leaseMs),
        startedAt: job.startedAt ?? now.toISOString(),
        updatedAt: now.toISOString(),
      });
      if (job.status === 'running')
        deps.logger.warn(
          { jobId: job.id, cursor: job.cursor, attempt: claimed.attempts },
          'resuming an interrupted tax record rebuild',
        );
      return claimed;
    } catch (err) {
      if (!isVersionConflict(err)) throw err;
    }
  }
  return null;
}

/**
 * Runs a claimed job: derives every source event of the organization (in arrival order, from the
 * job's cursor) again, writing missing entries and counting existing, mismatched, failed and
 * pending ones, with a checkpoint (progress, cursor, renewed claim) after each batch. Returns the
 * job as last saved, or null when another worker took the job over.
 */
export async function runTaxRecordRebuild(
  deps: TaxDeps,
  claimed: RebuildJobDoc,
  opts: RebuildRunOptions,
): Promise<RebuildJobDoc | null> {
  const jobs = jobsOf(deps);
  const sources = deps.store.collection<SourceEventDoc>(TAX_SOURCE_EVENTS);
  const scope = { organizationId: claimed.organizationId, mode: claimed.mode };
  let job = claimed;

  const save = async (patch: Partial<Omit<RebuildJobDoc, 'id' | 'version'>>): Promise<RebuildJobDoc | null> => {
    const now = deps.clock.now();
    try {
      job = await jobs.replace({
        ...job,
        leaseUntil: leaseFrom(now, opts.leaseMs),
        ...patch,
        updatedAt: now.toISOString(),
      });
      return job;
    } catch (err) {
      if (!isVersionConflict(err)) throw err;
      deps.logger.warn({ jobId: job.id, workerId: opts.workerId }, 'tax record rebuild taken over by another worker');
      return null;
    }
  };

  try {
    if (job.untilSeq === null) {
      const last = await sources.findOne(scope, { sort: { seq: -1 } });
      const sourceEvents = await sources.count(scope);
      if (!(await save({ untilSeq: last?.seq ?? 0, progress: { ...job.progress, sourceEvents } }))) return null;
    }
    const untilSeq = job.untilSeq ?? 0;
    for (;;) {
      const page = await sources.find(
        { ...scope, seq: { $gt: job.cursor, $lte: untilSeq } },
        { sort: { seq: 1 }, limit: opts.batchSize },
      );
      if (page.items.length === 0) break;
      const progress: RebuildProgress = { ...job.progress };
      for (const doc of page.items) {
        progress.processed++;
        try {
          const r = await deriveSourceEvent(deps, doc);
          progress.created += r.created;
          progress.existing += r.existing;
          progress.mismatched += r.mismatched;
        } catch (err) {
          progress.failed++;
          const reason = err instanceof Error ? err.message : String(err);
          deps.logger.error(
            { err, jobId: job.id, eventId: doc.eventId },
            'tax record rebuild could not derive a source event',
          );
          await markSourceFailed(deps, doc, reason);
        }
      }
      const cursor = page.items[page.items.length - 1]?.seq ?? job.cursor;
      if (!(await save({ progress, cursor }))) return null;
      if (opts.shouldStop()) {
        // Stopping: give the claim up now so the next worker resumes at once.
        return save({ leaseUntil: deps.clock.now().toISOString() });
      }
    }
    // Corrections may have found their sale later in the walk: count what still waits at the end.
    const pending = await sources.count({ ...scope, state: 'pending' });
    const finished = await save({
      status: 'completed',
      progress: { ...job.progress, pending },
      activeKey: null,
      leaseOwner: null,
      leaseUntil: null,
      finishedAt: deps.clock.now().toISOString(),
    });
    if (finished)
      deps.logger.info(
        { jobId: job.id, organizationId: job.organizationId, mode: job.mode, progress: finished.progress },
        'tax record rebuild completed',
      );
    return finished;
  } catch (err) {
    // The job stays running: its claim lapses and a worker resumes it (counted as an attempt).
    deps.logger.error({ err, jobId: job.id }, 'tax record rebuild interrupted');
    await save({ error: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    return job;
  }
}
