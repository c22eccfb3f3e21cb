import { deleteBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { RATE_RECORDS } from './tax-rate-checks';

/** Deletes one rate (a managed one comes back with replace-defaults). */
export async function deleteTaxRate(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  return deleteBookRecord(deps, key, id, RATE_RECORDS);
}
