import { deleteBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { RULE_RECORDS } from './tax-rule-checks';

/** Deletes one rule (a default one comes back with populate-defaults). */
export async function deleteTaxRule(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  return deleteBookRecord(deps, key, id, RULE_RECORDS);
}
