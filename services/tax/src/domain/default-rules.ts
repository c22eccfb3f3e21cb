import { RATE_CATEGORIES } from './default-rates';
import type { TaxRuleFields } from './tax-rule-doc';

/** A default tax rule; `key` identifies it so populate-defaults creates only the missing ones. */
export interface DefaultTaxRule extends TaxRuleFields {
  key: string;
  description: string;
}

/**
 * Categories the default rules send to the member state's preferential rate: every category of the
 * managed defaults but the two that only single member states tax apart (energy, wine).
 */
export const REDUCED_CATEGORIES = RATE_CATEGORIES.filter((category) => category !== 'energy' && category !== 'wine');

/**
 * The default rule set: the standard rate for everything, and the preferential rate of the place of
 * supply for the common reduced categories. How the engine applies rules (most specific wins,
 * `reduced` falls back to super-reduced, a zero rate, then standard): see rate-selection.ts.
 */
export const DEFAULT_RULES: readonly DefaultTaxRule[] = [
  {
    key: 'default_standard',
    name: 'Standard rate for everything not matched otherwise',
    itemType: null,
    category: null,
    country: null,
    rateType: 'standard',
    priority: 0,
    description: 'Lines without a more specific rule are taxed at the standard rate of the place of supply.',
  },
  ...REDUCED_CATEGORIES.map((category): DefaultTaxRule => ({
    key: `category_${category}_reduced`,
    name: `Reduced rate for ${category.replace(/_/g, ' ')}`,
    itemType: null,
    category,
    country: null,
    rateType: 'reduced',
    priority: 0,
    description: `Lines of category ${category} get the place of supply's preferential rate for it; the standard rate where it has none.`,
  })),
];
