import type { ReplaceDefaultTaxRatesPreview, ReplaceDefaultTaxRatesResult } from '@paymesh/contracts';
import type { Collection } from '@paymesh/store';
import { DEFAULT_RATES, DEFAULT_RATES_VERSION } from '../domain/default-rates';
import { planDefaultRateSync, type RateSyncPlan } from '../domain/default-sync';
import { rateDocBody, rateRecordOf, type TaxRateDoc, type TaxRateFields } from '../domain/tax-rate-doc';
import { TAX_RATES } from '../store/collections';
import { ensureBook, writeBook } from './book';
import type { OrgKey, TaxDeps } from './deps';

async function planOf(rates: Collection<TaxRateDoc>, key: OrgKey): Promise<RateSyncPlan> {
  const { items } = await rates.find({ organizationId: key.organizationId, mode: key.mode });
  return planDefaultRateSync(DEFAULT_RATES, items);
}

const isNoop = (p: RateSyncPlan) => p.create.length === 0 && p.update.length === 0 && p.retire.length === 0;

/**
 * Syncs the book's managed rates with the managed defaults (see planDefaultRateSync): creates the
 * missing, updates the changed, retires those whose default is gone; custom rates stay untouched.
 * Idempotent: a book already in sync is not written, and a second call creates and updates nothing.
 */
export async function replaceDefaultTaxRates(deps: TaxDeps, key: OrgKey): Promise<ReplaceDefaultTaxRatesResult> {
  const marker = await ensureBook(deps, key);
  const outside = await planOf(deps.store.collection<TaxRateDoc>(TAX_RATES), key);
  const result = (plan: RateSyncPlan, created: TaxRateDoc[], updated: TaxRateDoc[]): ReplaceDefaultTaxRatesResult => ({
    defaultsVersion: DEFAULT_RATES_VERSION,
    created: created.map(rateRecordOf),
    updated: updated.map(rateRecordOf),
    retired: plan.retire.map((d) => d.id),
    unchanged: plan.unchanged,
    skipped: plan.skipped,
  });
  if (isNoop(outside) && marker.defaultsVersion === DEFAULT_RATES_VERSION) return result(outside, [], []);

  const answer = await writeBook(
    deps,
    key,
    async (tx, now) => {
      const rates = tx.collection<TaxRateDoc>(TAX_RATES);
      // Planned again under the book's lock: a concurrent sync may have done part of it.
      const plan = await planOf(rates, key);
      for (const d of plan.retire) await rates.delete(d.id);
      const updated: TaxRateDoc[] = [];
      for (const { doc, fields } of plan.update) {
        updated.push(
          await rates.replace(
            doc.id,
            doc.version,
            rateDocBody(key, fields, {
              managed: true,
              defaultKey: doc.defaultKey,
              createdAt: doc.createdAt,
              updatedAt: now,
            }),
          ),
        );
      }
      const created: TaxRateDoc[] = [];
      for (const { defaultKey, fields } of plan.create) {
        created.push(
          await rates.insert(rateDocBody(key, fields, { managed: true, defaultKey, createdAt: now, updatedAt: now })),
        );
      }
      return result(plan, created, updated);
    },
    { defaultsVersion: DEFAULT_RATES_VERSION },
  );
  deps.logger.info(
    {
      organizationId: key.organizationId,
      mode: key.mode,
      defaultsVersion: DEFAULT_RATES_VERSION,
      created: answer.created.length,
      updated: answer.updated.length,
      retired: answer.retired.length,
      skipped: answer.skipped.length,
    },
    'managed tax rates synced with the defaults',
  );
  return answer;
}

const draftOf = (f: TaxRateFields): ReplaceDefaultTaxRatesPreview['create'][number] => ({
  code: f.code,
  country: f.country,
  rateType: f.rateType,
  percent: f.percent,
  categories: f.categories,
  validFrom: f.validFrom,
  validTo: f.validTo,
  source: f.source,
  description: f.description,
});

/**
 * What replaceDefaultTaxRates would do to the book now (the same plan), written nowhere: the rates
 * it would create, each managed rate it would update with its new figures, those it would retire.
 */
export async function previewReplaceDefaultTaxRates(
  deps: TaxDeps,
  key: OrgKey,
): Promise<ReplaceDefaultTaxRatesPreview> {
  await ensureBook(deps, key);
  const plan = await planOf(deps.store.collection<TaxRateDoc>(TAX_RATES), key);
  return {
    defaultsVersion: DEFAULT_RATES_VERSION,
    create: plan.create.map((c) => draftOf(c.fields)),
    update: plan.update.map((u) => ({ rate: rateRecordOf(u.doc), to: draftOf(u.fields) })),
    retire: plan.retire.map(rateRecordOf),
    unchanged: plan.unchanged,
    skipped: plan.skipped,
  };
}
