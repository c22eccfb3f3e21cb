import type { TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { deleteBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { ownRule } from './tax-rule-checks';

/** Deletes one rule (a default one comes back with populate-defaults). */
export async function deleteTaxRule(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  return deleteBookRecord<TaxRuleDoc>(deps, key, id, {
    collection: TAX_RULES,
    own: ownRule,
    noun: 'tax rule',
    logField: 'ruleId',
  });
}
