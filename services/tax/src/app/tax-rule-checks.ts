import type { TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { bookRecords } from './tax-rate-checks';

/** The book's rules, as its record updates and deletes see them; other tenants' rules are not found. */
export const RULE_RECORDS = bookRecords<TaxRuleDoc>(TAX_RULES, 'tax rule', 'ruleId');
