import type { DefaultTaxRate } from './default-rates';
import type { DefaultTaxRule } from './default-rules';
import {
  defaultRateFields,
  defaultRateKey,
  periodsOverlap,
  sameRateFields,
  type TaxRateDoc,
  type TaxRateFields,
} from './tax-rate-doc';
import type { TaxRuleDoc } from './tax-rule-doc';

export type SkipReason = 'customized' | 'conflicts_with_custom';

/** What replace-defaults does to one book, decided from the defaults and the stored rates alone. */
export interface RateSyncPlan {
  create: { defaultKey: string; fields: TaxRateFields }[];
  update: { doc: TaxRateDoc; fields: TaxRateFields }[];
  retire: TaxRateDoc[];
  unchanged: number;
  skipped: { code: string; validFrom: string; reason: SkipReason; rateId: string | null }[];
}

/**
 * Syncs managed rates with the defaults: a default without a record is created, a managed record
 * that differs is updated, a managed record whose default is gone is retired. Custom records are
 * never touched: a default the merchant edited stays theirs (`customized`), and a default that
 * would collide with a custom rate of the same code (same first day or overlapping period) is left
 * out (`conflicts_with_custom`), so the book never holds two rates of one code for the same day.
 */
export function planDefaultRateSync(defaults: readonly DefaultTaxRate[], docs: readonly TaxRateDoc[]): RateSyncPlan {
  const current = new Set(defaults.map(defaultRateKey));
  const retire = docs.filter((d) => d.managed && (d.defaultKey === null || !current.has(d.defaultKey)));
  const kept = docs.filter((d) => !retire.includes(d));
  const byKey = new Map(kept.filter((d) => d.defaultKey !== null).map((d) => [d.defaultKey, d]));
  const customs = kept.filter((d) => !d.managed);
  const plan: RateSyncPlan = { create: [], update: [], retire, unchanged: 0, skipped: [] };
  for (const def of defaults) {
    const defaultKey = defaultRateKey(def);
    const doc = byKey.get(defaultKey);
    const skip = (reason: SkipReason, rateId: string) =>
      plan.skipped.push({ code: def.code, validFrom: def.validFrom, reason, rateId });
    if (doc && !doc.managed) {
      skip('customized', doc.id);
      continue;
    }
    const fields = defaultRateFields(def);
    if (doc && sameRateFields(doc, fields)) {
      plan.unchanged += 1;
      continue;
    }
    const clash = customs.find((c) => c.code === def.code && periodsOverlap(c, fields));
    if (clash) skip('conflicts_with_custom', clash.id);
    else if (doc) plan.update.push({ doc, fields });
    else plan.create.push({ defaultKey, fields });
  }
  return plan;
}

/** Default rules whose key no stored rule carries (never created, or deleted by the merchant). */
export function missingDefaultRules(
  defaults: readonly DefaultTaxRule[],
  docs: readonly Pick<TaxRuleDoc, 'defaultKey'>[],
): DefaultTaxRule[] {
  const present = new Set(docs.map((d) => d.defaultKey).filter((k): k is string => k !== null));
  return defaults.filter((d) => !present.has(d.key));
}
