import { NotFoundError, ofTenant, requireObjectId } from '@paymesh/core';
import type { TaxRecordRebuildJob } from '@paymesh/contracts';
import { jobView, type RebuildJobDoc } from '../domain/rebuild-job';
import { TAX_RECORD_REBUILDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';

/** A rebuild job of the organization and mode; `id` empty: the latest one. */
export async function getTaxRecordRebuild(deps: TaxDeps, key: OrgKey, id: string): Promise<TaxRecordRebuildJob> {
  const jobs = deps.store.collection<RebuildJobDoc>(TAX_RECORD_REBUILDS);
  if (id === '') {
    const latest = await jobs.findOne(
      { organizationId: key.organizationId, mode: key.mode },
      { sort: { createdAt: -1 } },
    );
    if (!latest) throw new NotFoundError('no tax record rebuild has been started');
    return jobView(latest);
  }
  requireObjectId(id, 'jobId');
  const job = await jobs.get(id);
  if (!ofTenant(job, key)) throw new NotFoundError('tax record rebuild not found');
  return jobView(job);
}
