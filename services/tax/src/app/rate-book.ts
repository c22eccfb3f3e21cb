import type { EngineRate, EngineRule } from '../domain/engine';
import type { TaxRateDoc } from '../domain/tax-rate-doc';
import { RULE_ORDER, type TaxRuleDoc } from '../domain/tax-rule-doc';
import { TAX_RATE_BOOKS, TAX_RATES, TAX_RULES } from '../store/collections';
import { ensureBook, type RateBookDoc } from './book';
import type { OrgKey, TaxDeps } from './deps';

/** The rates and rules the engine uses for one organization and data mode. */
export interface RateBook {
  rates: readonly EngineRate[];
  rules: readonly EngineRule[];
}

/** Reads the whole book from the store (seeding it on first use) with the revision it was read at. */
async function readBook(deps: TaxDeps, key: OrgKey): Promise<{ book: RateBook; revision: number }> {
  const marker = await ensureBook(deps, key);
  const tenant = { organizationId: key.organizationId, mode: key.mode };
  const [rates, rules] = await Promise.all([
    deps.store.collection<TaxRateDoc>(TAX_RATES).find(tenant, { sort: { country: 1, code: 1, validFrom: 1 } }),
    deps.store.collection<TaxRuleDoc>(TAX_RULES).find(tenant, { sort: RULE_ORDER }),
  ]);
  return {
    // The revision read first: a write landing between the reads makes the copy newer, never older.
    revision: marker.revision,
    book: {
      rates: rates.items.map((r) => ({
        id: r.id,
        code: r.code,
        country: r.country,
        rateType: r.rateType,
        percent: r.percent,
        categories: r.categories,
        validFrom: r.validFrom,
        validTo: r.validTo,
      })),
      rules: rules.items.map((r) => ({
        id: r.id,
        itemType: r.itemType,
        category: r.category,
        country: r.country,
        rateType: r.rateType,
        priority: r.priority,
      })),
    },
  };
}

/**
 * Loads the organization's rate book: its stored rates and rules, seeded with the managed defaults
 * on first use. On the calculation path: with `deps.rateBooks` the book comes from the in-process
 * cache (writes of this process are seen at once, those of other replicas within the cache TTL).
 */
export async function loadRateBook(deps: TaxDeps, key: OrgKey): Promise<RateBook> {
  if (!deps.rateBooks) return (await readBook(deps, key)).book;
  return deps.rateBooks.get(key, {
    revision: async () => {
      const marker = await deps.store
        .collection<RateBookDoc>(TAX_RATE_BOOKS)
        .findOne({ organizationId: key.organizationId, mode: key.mode });
      return marker?.revision ?? -1;
    },
    load: () => readBook(deps, key),
  });
}
