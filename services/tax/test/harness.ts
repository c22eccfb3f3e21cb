import { randomBytes } from 'node:crypto';
import { createLogger, ManualClock, newObjectId } from '@paymesh/core';
import { createStore, dropStoreDatabase, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { OrgKey, TaxDeps } from '../src/app/deps';
import { RateBookCache } from '../src/app/rate-book-cache';
import { collections } from '../src/store/collections';

export const PG_URL = TEST_PG_URL;

export interface TaxHarness {
  store: DroppableStore;
  clock: ManualClock;
  /** Use cases' dependencies without a rate-book cache (every load reads the store). */
  deps: TaxDeps;
  /** Dependencies of one more replica with its own cache and cache clock (ms), sharing the store. */
  replica(ttlMs: number): { deps: TaxDeps; advance(ms: number): void };
  /** A fresh organization (live mode unless said otherwise). */
  org(mode?: 'live' | 'test'): OrgKey;
  close(): Promise<void>;
}

/** The tax service's use cases on a schema of their own in the machine's PostgreSQL. */
export async function openTaxHarness(): Promise<TaxHarness> {
  const database = `tax_it_${randomBytes(5).toString('hex')}`;
  const store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const logger = createLogger({ service: 'tax-test', level: 'silent' });
  const vatIds: TaxDeps['vatIds'] = {
    check: async () => {
      throw new Error('no VAT ID checks in these tests');
    },
  };
  const deps: TaxDeps = { store, clock, logger, vatIds };
  return {
    store,
    clock,
    deps,
    replica(ttlMs) {
      let now = 0;
      const rateBooks = new RateBookCache({ ttlMs, now: () => now });
      return { deps: { ...deps, rateBooks }, advance: (ms) => (now += ms) };
    },
    org: (mode = 'live') => ({ organizationId: newObjectId(), mode }),
    async close() {
      await store.close();
      await dropStoreDatabase({ url: PG_URL, database });
    },
  };
}
