import { NotFoundError } from '@paymesh/core';
import type { TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { recordId } from './tax-rate-checks';
import { ownRule } from './tax-rule-checks';

/** Deletes one rule (a default one comes back with populate-defaults). */
export async function deleteTaxRule(deps: TaxDeps, key: OrgKey, id: string): Promise<{ id: string; deleted: true }> {
  recordId(id);
  // An unknown id is answered without touching (or seeding) the book.
  await ownRule(deps.store.collection<TaxRuleDoc>(TAX_RULES), key, id);
  await writeBook(deps, key, async (tx) => {
    const rules = tx.collection<TaxRuleDoc>(TAX_RULES);
    await ownRule(rules, key, id);
    if (!(await rules.delete(id))) throw new NotFoundError('tax rule not found');
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, ruleId: id }, 'tax rule deleted');
  return { id, deleted: true };
}
