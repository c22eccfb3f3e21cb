import { ValidationError } from '@paymesh/core';
import { taxRecord, type TaxRecordListQuery, type TaxRecordPage } from '@paymesh/contracts';
import type { Filter } from '@paymesh/store';
import type { TaxRecordDoc } from '../domain/source-event';
import { isCalendarDate } from '../domain/tax-rate-doc';
import { TAX_RECORDS } from '../store/collections';
import type { OrgKey, TaxDeps } from './deps';

/** A calendar date that exists (the schema checks only the shape). */
function realDate(value: string, field: string): string {
  if (!isCalendarDate(value)) throw new ValidationError(`${field}: "${value}" is not a valid date`, { field });
  return value;
}

/** Ledger entries of the organization and mode, newest tax point first (then newest entry). */
export async function listTaxRecords(deps: TaxDeps, key: OrgKey, q: TaxRecordListQuery): Promise<TaxRecordPage> {
  const taxPointDate: Record<string, string> = {};
  if (q.startDate !== undefined) taxPointDate.$gte = realDate(q.startDate, 'startDate');
  if (q.endDate !== undefined) taxPointDate.$lte = realDate(q.endDate, 'endDate');
  if (q.startDate !== undefined && q.endDate !== undefined && q.startDate > q.endDate) {
    throw new ValidationError('startDate must not be after endDate', { field: 'startDate' });
  }
  const filter: Filter = {
    organizationId: key.organizationId,
    mode: key.mode,
    ...(Object.keys(taxPointDate).length > 0 ? { taxPointDate } : {}),
    ...(q.sourceKind ? { sourceKind: q.sourceKind } : {}),
    ...(q.recognitionMode ? { recognitionMode: q.recognitionMode } : {}),
    ...(q.entryType ? { entryType: q.entryType } : {}),
    ...(q.sourceId ? { sourceId: q.sourceId } : {}),
    ...(q.linkedTransactionId ? { linkedTransactionId: q.linkedTransactionId } : {}),
    ...(q.linkedInvoiceId ? { linkedInvoiceId: q.linkedInvoiceId } : {}),
  };
  const page = await deps.store
    .collection<TaxRecordDoc>(TAX_RECORDS)
    .find(filter, { sort: { taxPointDate: -1, createdAt: -1 }, page: q.page, limit: q.limit, total: true });
  return { data: page.items.map((d) => taxRecord.parse(d)), total: page.total, page: page.page, limit: page.limit };
}
