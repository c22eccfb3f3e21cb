import { NotFoundError, ofTenant } from '@paymesh/core';
import type { Collection } from '@paymesh/store';
import type { TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import type { BookRecordKind } from './book';
import type { OrgKey } from './deps';
import { recordId } from './tax-rate-checks';

/** The organization's rule with this id; other tenants' rules are not found. */
export async function ownRule(rules: Collection<TaxRuleDoc>, key: OrgKey, id: string): Promise<TaxRuleDoc> {
  const doc = await rules.get(recordId(id));
  if (!ofTenant(doc, key)) throw new NotFoundError('tax rule not found');
  return doc;
}

/** The book's rules, as its record updates and deletes see them. */
export const RULE_RECORDS: BookRecordKind<TaxRuleDoc> = {
  collection: TAX_RULES,
  own: ownRule,
  noun: 'tax rule',
  logField: 'ruleId',
};
