import type { RateType, TaxItemType } from '@paymesh/contracts';
import type { EngineRate, EngineRule } from './engine';

/**
 * Rule and rate selection.
 *
 * Rules: a rule matches a line when each of its `country` (the place of supply), `category` and
 * `itemType` is null or equal to the line's. The most specific match wins: a rule naming a country
 * beats any rule without one, then a rule naming a category, then one naming an item type; equally
 * specific rules are ordered by higher `priority`, then by `id` (ascending), so the choice is
 * deterministic. No matching rule means `standard`.
 *
 * Rates: only rates of the place-of-supply country valid on the tax point (`validFrom` <= date <
 * `validTo`) are candidates.
 * - `standard`: the standard rate (one listing the line's category, else the general one without
 *   categories). None -> TAX_RATE_MISSING.
 * - `reduced` / `super_reduced`: the rule asks for the member state's preferential rate of the
 *   line's category. Tried in order: the requested type, the other of the two reduced types, then
 *   a `zero` rate (Ireland's and Northern Ireland's zero-rated books and food); within a type a
 *   rate listing the line's category wins over a general one of that type (empty `categories`).
 *   So a `reduced` rule gives France's 2.1 % for newspapers, whose only preferential rate is
 *   super-reduced. Nothing found -> the standard rate, and the line's reason says why.
 * - `zero`: a zero rate of the country (listing the category, or general), else the synthetic
 *   `VAT_<CC>_ZERO` at 0 %.
 * Equal candidates (a data error) are ordered by the later `validFrom`, then by `code`.
 */

export interface RuleLine {
  itemType: TaxItemType;
  category: string | null;
}

function specificity(rule: EngineRule): number {
  return (rule.country !== null ? 4 : 0) + (rule.category !== null ? 2 : 0) + (rule.itemType !== null ? 1 : 0);
}

/** The rule deciding the rate type of a line in `country`, or null when none matches. */
export function selectRule(rules: readonly EngineRule[], line: RuleLine, country: string): EngineRule | null {
  let best: EngineRule | null = null;
  let bestScore = -1;
  for (const rule of rules) {
    if (rule.country !== null && rule.country !== country) continue;
    if (rule.category !== null && rule.category !== line.category) continue;
    if (rule.itemType !== null && rule.itemType !== line.itemType) continue;
    const score = specificity(rule);
    if (
      best === null ||
      score > bestScore ||
      (score === bestScore && (rule.priority > best.priority || (rule.priority === best.priority && rule.id < best.id)))
    ) {
      best = rule;
      bestScore = score;
    }
  }
  return best;
}

/** Rates valid in one country on one date. */
export function ratesOn(rates: readonly EngineRate[], country: string, date: string): EngineRate[] {
  return rates.filter((r) => r.country === country && r.validFrom <= date && (r.validTo === null || date < r.validTo));
}

function better(a: EngineRate, b: EngineRate): boolean {
  if (a.validFrom !== b.validFrom) return a.validFrom > b.validFrom;
  return a.code < b.code;
}

/** Best rate of `type` among `candidates` for `category` (listing it first, then a general one). */
export function rateOfType(
  candidates: readonly EngineRate[],
  type: RateType,
  category: string | null,
): EngineRate | null {
  let listed: EngineRate | null = null;
  let general: EngineRate | null = null;
  for (const r of candidates) {
    if (r.rateType !== type) continue;
    if (r.categories.length === 0) {
      if (general === null || better(r, general)) general = r;
    } else if (category !== null && r.categories.includes(category)) {
      if (listed === null || better(r, listed)) listed = r;
    }
  }
  return listed ?? general;
}

const PREFERENTIAL_ORDER: Readonly<Record<'reduced' | 'super_reduced', readonly RateType[]>> = {
  reduced: ['reduced', 'super_reduced', 'zero'],
  super_reduced: ['super_reduced', 'reduced', 'zero'],
};

/**
 * The rate a rule's `reduced`/`super_reduced` asks for, or null (the caller then applies the
 * standard rate). A general (category-less) zero rate is never taken as preferential.
 */
export function preferentialRate(
  candidates: readonly EngineRate[],
  type: 'reduced' | 'super_reduced',
  category: string | null,
): EngineRate | null {
  for (const t of PREFERENTIAL_ORDER[type]) {
    const r = rateOfType(candidates, t, category);
    if (r !== null && (t !== 'zero' || r.categories.length > 0)) return r;
  }
  return null;
}
