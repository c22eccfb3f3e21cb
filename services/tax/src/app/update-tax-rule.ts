import type { TaxRuleRecord, TaxRuleUpdate } from '@paymesh/contracts';
import {
  ruleDocBody,
  ruleRecordOf,
  validateRuleFields,
  type TaxRuleDoc,
  type TaxRuleFields,
} from '../domain/tax-rule-doc';
import { updateBookRecord } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { RULE_RECORDS } from './tax-rule-checks';

/** Absent fields keep their value; null clears the nullable ones. */
function merged(cur: TaxRuleDoc, p: TaxRuleUpdate): TaxRuleFields {
  const pick = <K extends keyof TaxRuleFields>(k: K): TaxRuleFields[K] =>
    p[k] !== undefined ? (p[k] as TaxRuleFields[K]) : cur[k];
  return {
    name: pick('name'),
    itemType: pick('itemType'),
    category: pick('category'),
    country: pick('country'),
    rateType: pick('rateType'),
    priority: pick('priority'),
    description: pick('description'),
  };
}

/**
 * Partial update of a rule. Editing a default rule makes it the merchant's own (`managed: false`);
 * it keeps its default's key, so populate-defaults does not add the default a second time.
 */
export async function updateTaxRule(
  deps: TaxDeps,
  key: OrgKey,
  id: string,
  patch: TaxRuleUpdate,
): Promise<TaxRuleRecord> {
  const doc = await updateBookRecord(deps, key, id, patch, RULE_RECORDS, {
    fields: (cur) => validateRuleFields(merged(cur, patch)),
    body: ruleDocBody,
  });
  return ruleRecordOf(doc);
}
