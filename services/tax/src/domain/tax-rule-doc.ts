import { ValidationError } from '@paymesh/core';
import type { RateType, TaxItemType, TaxRuleRecord } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import { isIsoCountry } from './country';
import type { Mode } from './tax-rate-doc';

/** The fields of a rule a merchant or a default decides. */
export interface TaxRuleFields {
  name: string;
  itemType: TaxItemType | null;
  category: string | null;
  country: string | null;
  rateType: RateType;
  priority: number;
  description: string | null;
}

/** A stored rule of one organization and data mode. */
export interface TaxRuleDoc extends StoredDoc, TaxRuleFields {
  organizationId: string;
  mode: Mode;
  /** How specific the rule is (see ruleSpecificity); stored so the list sorts by it. */
  specificity: number;
  managed: boolean;
  /** `key` of the default rule it stems from, kept when a merchant edits it. Never shown. */
  defaultKey: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Specificity in the order the engine weighs a match: a country outweighs a category, which
 * outweighs an item type (4 + 2 + 1); ties are decided by `priority`.
 */
export function ruleSpecificity(r: Pick<TaxRuleFields, 'country' | 'category' | 'itemType'>): number {
  return (r.country !== null ? 4 : 0) + (r.category !== null ? 2 : 0) + (r.itemType !== null ? 1 : 0);
}

/** Rules beyond the schema: a country, when given, is an assigned ISO code. */
export function validateRuleFields(f: TaxRuleFields): TaxRuleFields {
  if (f.country !== null && !isIsoCountry(f.country)) {
    throw new ValidationError(`country: ${f.country} is not an ISO 3166-1 alpha-2 country code`, { field: 'country' });
  }
  return f;
}

/** Just the decided fields of a rule (of a default, a stored rule or a record). */
export function ruleFieldsOf(r: TaxRuleFields): TaxRuleFields {
  return {
    name: r.name,
    itemType: r.itemType,
    category: r.category,
    country: r.country,
    rateType: r.rateType,
    priority: r.priority,
    description: r.description,
  };
}

export function ruleDocBody(
  key: { organizationId: string; mode: Mode },
  f: TaxRuleFields,
  meta: { managed: boolean; defaultKey: string | null; createdAt: string; updatedAt: string },
): Omit<TaxRuleDoc, 'id' | 'version'> {
  return { organizationId: key.organizationId, mode: key.mode, ...f, specificity: ruleSpecificity(f), ...meta };
}

/** Most specific first, then higher priority; the store breaks remaining ties by id. */
export const RULE_ORDER = { specificity: -1, priority: -1, country: 1, category: 1, itemType: 1 } as const;

export function ruleRecordOf(d: TaxRuleDoc): TaxRuleRecord {
  return { id: d.id, ...ruleFieldsOf(d), managed: d.managed, createdAt: d.createdAt, updatedAt: d.updatedAt };
}
