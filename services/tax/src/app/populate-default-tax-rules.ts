import type { PopulateDefaultTaxRulesPreview, PopulateDefaultTaxRulesResult } from '@paymesh/contracts';
import type { Collection } from '@paymesh/store';
import { DEFAULT_RULES } from '../domain/default-rules';
import { missingDefaultRules } from '../domain/default-sync';
import { ruleFieldsOf, ruleDocBody, ruleRecordOf, type TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RULES } from '../store/collections';
import { ensureBook, writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

async function missing(rules: Collection<TaxRuleDoc>, key: OrgKey) {
  const { items } = await rules.find({ organizationId: key.organizationId, mode: key.mode });
  return missingDefaultRules(DEFAULT_RULES, items);
}

/**
 * Creates the default rules whose key no rule of the book carries (never created, or deleted);
 * an edited default keeps its key and is not added again. Up to date: nothing written, `created` empty.
 */
export async function populateDefaultTaxRules(deps: TaxDeps, key: OrgKey): Promise<PopulateDefaultTaxRulesResult> {
  await ensureBook(deps, key);
  if ((await missing(deps.store.collection<TaxRuleDoc>(TAX_RULES), key)).length === 0) return { created: [] };
  const created = await writeBook(deps, key, async (tx, now) => {
    const rules = tx.collection<TaxRuleDoc>(TAX_RULES);
    const out: TaxRuleDoc[] = [];
    // Looked up again under the book's lock: a concurrent call may have added some.
    for (const d of await missing(rules, key)) {
      out.push(
        await rules.insert(
          ruleDocBody(key, ruleFieldsOf(d), { managed: true, defaultKey: d.key, createdAt: now, updatedAt: now }),
        ),
      );
    }
    return out;
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, created: created.length },
    'default tax rules populated',
  );
  return { created: created.map(ruleRecordOf) };
}

/** The default rules populateDefaultTaxRules would create now, written nowhere. */
export async function previewPopulateDefaultTaxRules(
  deps: TaxDeps,
  key: OrgKey,
): Promise<PopulateDefaultTaxRulesPreview> {
  await ensureBook(deps, key);
  const rules = await missing(deps.store.collection<TaxRuleDoc>(TAX_RULES), key);
  return { create: rules.map(ruleFieldsOf) };
}
