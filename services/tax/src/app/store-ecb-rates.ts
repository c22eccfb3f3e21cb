import { ConflictError, ErrorCode } from '@paymesh/core';
import { ecbRateId, type EcbRateDoc } from '../domain/ecb-rates';
import type { EcbPublication } from '../ecb/xml';
import { ECB_RATES } from '../store/collections';
import type { TaxDeps } from './deps';

export interface StoredEcbRates {
  /** Days new to the store, days whose rates changed, days already stored as they are. */
  inserted: number;
  updated: number;
  unchanged: number;
}

const sameRates = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

/**
 * Keeps the publications of one fetched file: one document per day (a derived id and a unique
 * index on the day), written only when new or changed. Replicas fetching the same file at once
 * write each day once; a day the ECB corrected replaces its rates.
 */
export async function storeEcbRates(
  deps: Pick<TaxDeps, 'store' | 'clock'>,
  publications: readonly EcbPublication[],
  source: string,
): Promise<StoredEcbRates> {
  const col = deps.store.collection<EcbRateDoc>(ECB_RATES);
  const now = deps.clock.now().toISOString();
  const out: StoredEcbRates = { inserted: 0, updated: 0, unchanged: 0 };
  const dates = publications.map((p) => p.date);
  const stored = new Map<string, EcbRateDoc>();
  for (let i = 0; i < dates.length; i += 500) {
    for (const doc of (await col.find({ date: { $in: dates.slice(i, i + 500) } })).items) stored.set(doc.date, doc);
  }

  const update = async (p: EcbPublication): Promise<void> => {
    let changed = false;
    await col.update(ecbRateId(p.date), (cur) => {
      changed = !sameRates(cur.rates, p.rates);
      return changed ? { date: cur.date, rates: p.rates, source, fetchedAt: cur.fetchedAt, updatedAt: now } : null;
    });
    if (changed) out.updated++;
    else out.unchanged++;
  };

  const fresh = publications.filter((p) => !stored.has(p.date));
  for (const p of publications) {
    const doc = stored.get(p.date);
    if (!doc) continue;
    if (sameRates(doc.rates, p.rates)) out.unchanged++;
    else await update(p);
  }
  const docs = fresh.map((p) => ({
    id: ecbRateId(p.date),
    date: p.date,
    rates: p.rates,
    source,
    fetchedAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < docs.length; i += 500) {
    const batch = docs.slice(i, i + 500);
    try {
      await col.insertMany(batch);
      out.inserted += batch.length;
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
      // Another replica stored some of these days meanwhile: one at a time.
      for (const doc of batch) {
        try {
          await col.insert(doc);
          out.inserted++;
        } catch (e) {
          if (!(e instanceof ConflictError && e.code === ErrorCode.DUPLICATE_KEY)) throw e;
          await update({ date: doc.date, rates: doc.rates });
        }
      }
    }
  }
  return out;
}
