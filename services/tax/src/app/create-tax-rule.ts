import type { TaxRuleCreate, TaxRuleRecord } from '@paymesh/contracts';
import { ruleDocBody, ruleRecordOf, validateRuleFields, type TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

/** Adds a custom rule. */
export async function createTaxRule(deps: TaxDeps, key: OrgKey, input: TaxRuleCreate): Promise<TaxRuleRecord> {
  const fields = validateRuleFields(input);
  const doc = await writeBook(deps, key, (tx, now) =>
    tx
      .collection<TaxRuleDoc>(TAX_RULES)
      .insert(ruleDocBody(key, fields, { managed: false, defaultKey: null, createdAt: now, updatedAt: now })),
  );
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, ruleId: doc.id }, 'tax rule created');
  return ruleRecordOf(doc);
}
