import type { TaxRuleListQuery, TaxRulePage } from '@paymesh/contracts';
import { RULE_ORDER, ruleRecordOf, type TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { ensureBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

/** One page of the book's rules (seeding the book on first use): most specific first, then higher priority. */
export async function listTaxRules(deps: TaxDeps, key: OrgKey, q: TaxRuleListQuery): Promise<TaxRulePage> {
  await ensureBook(deps, key);
  const page = await deps.store
    .collection<TaxRuleDoc>(TAX_RULES)
    .find(
      { organizationId: key.organizationId, mode: key.mode },
      { sort: RULE_ORDER, page: q.page, limit: q.limit, total: true },
    );
  return { items: page.items.map(ruleRecordOf), total: page.total, page: page.page, limit: page.limit };
}
