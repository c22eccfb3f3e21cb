import { NotFoundError, ofTenant, requireObjectId } from '@paymesh/core';
import { taxRecord, type TaxRecord } from '@paymesh/contracts';
import type { TaxRecordDoc } from '../domain/source-event';
import { TAX_RECORDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';

export async function getTaxRecord(deps: TaxDeps, key: OrgKey, id: string): Promise<TaxRecord> {
  requireObjectId(id, 'id');
  const doc = await deps.store.collection<TaxRecordDoc>(TAX_RECORDS).get(id);
  if (!ofTenant(doc, key)) throw new NotFoundError('tax record not found');
  return taxRecord.parse(doc);
}
