import type { StoredDoc } from '@paymesh/store';
import type { TaxRecordRebuildJob, TaxRecordRebuildStatus } from '@paymesh/contracts';

/** Runs of one job before it is given up (a worker died during each). */
export const MAX_REBUILD_ATTEMPTS = 3;

export type RebuildProgress = TaxRecordRebuildJob['progress'];

/** A rebuild job as stored (`tax_record_rebuilds`). */
export interface RebuildJobDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  status: TaxRecordRebuildStatus;
  progress: RebuildProgress;
  attempts: number;
  /** `<organizationId>:<mode>` while queued or running, else null: a unique index keeps one active job per organization and mode. */
  activeKey: string | null;
  /** `seq` of the last source event the job has processed (it resumes after it). */
  cursor: number;
  /** Last `seq` of the organization's source events when the job started (later ones are the consumer's). */
  untilSeq: number | null;
  /** The worker running the job and until when its claim holds (renewed at each checkpoint). */
  leaseOwner: string | null;
  leaseUntil: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  updatedAt: string;
}

export const activeKeyOf = (organizationId: string, mode: 'live' | 'test'): string => `${organizationId}:${mode}`;

export function emptyProgress(): RebuildProgress {
  return { sourceEvents: 0, processed: 0, created: 0, existing: 0, mismatched: 0, failed: 0, pending: 0 };
}

/** Whether a worker may take the job now: queued, or running under a claim that has lapsed. */
export function isClaimable(job: Pick<RebuildJobDoc, 'status' | 'leaseUntil'>, nowIso: string): boolean {
  if (job.status === 'queued') return true;
  return job.status === 'running' && (job.leaseUntil === null || job.leaseUntil <= nowIso);
}

export function jobView(doc: RebuildJobDoc): TaxRecordRebuildJob {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    mode: doc.mode,
    status: doc.status,
    progress: { ...doc.progress },
    attempts: doc.attempts,
    createdAt: doc.createdAt,
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    error: doc.error,
  };
}
