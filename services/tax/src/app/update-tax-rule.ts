import { ValidationError } from '@paymesh/core';
import type { TaxRuleRecord, TaxRuleUpdate } from '@paymesh/contracts';
import {
  ruleDocBody,
  ruleRecordOf,
  validateRuleFields,
  type TaxRuleDoc,
  type TaxRuleFields,
} from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';
import { recordId } from './tax-rate-checks';
import { ownRule } from './tax-rule-checks';

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
  recordId(id);
  if (Object.keys(patch).length === 0) throw new ValidationError('body must change at least one field');
  await ownRule(deps.store.collection<TaxRuleDoc>(TAX_RULES), key, id);
  const doc = await writeBook(deps, key, async (tx, now) => {
    const rules = tx.collection<TaxRuleDoc>(TAX_RULES);
    const cur = await ownRule(rules, key, id);
    const fields = validateRuleFields(merged(cur, patch));
    return rules.replace(
      cur.id,
      cur.version,
      ruleDocBody(key, fields, {
        managed: false,
        defaultKey: cur.defaultKey,
        createdAt: cur.createdAt,
        updatedAt: now,
      }),
    );
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, ruleId: doc.id, fields: Object.keys(patch) },
    'tax rule updated',
  );
  return ruleRecordOf(doc);
}
