import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '@paymesh/core';
import type { TxScope } from '@paymesh/store';
import {
  AGGREGATES_VERSION,
  bucketDeltas,
  contributionOf,
  quarterStart,
  type DashboardBucketDoc,
} from '../domain/dashboard';
import type { TransactionDoc } from '../domain/transaction';
import { DASHBOARD_BUCKETS, DASHBOARD_STATE, TRANSACTIONS } from '../store/collections';
import { withAggregates } from './dashboard-aggregates';
import type { CheckoutDeps } from './deps';

/** The one state document of the backfill. */
export const BACKFILL_STATE_ID = '00000000000000000000da5b';

export interface BackfillStateDoc {
  id: string;
  version: number;
  /** Rules version the finished pass brought every transaction to (0: none finished). */
  doneVersion: number;
  /** Rules version of the pass under way, and the last transaction id it handled. */
  runningVersion: number;
  cursor: string;
  scanned: number;
  updated: number;
  updatedAt: string;
}

export interface BackfillBatch {
  scanned: number;
  updated: number;
  /** No transaction after the cursor: the pass is complete. */
  done: boolean;
}

type Deps = Pick<CheckoutDeps, 'outbox' | 'clock'> & { logger: Logger };

/** A transaction whose stored contribution is not what the current rules give for its state. */
export function needsAggregation(doc: TransactionDoc): boolean {
  const stored = doc.aggregated;
  if (!stored || stored.v !== AGGREGATES_VERSION || doc.createdQuarter !== quarterStart(doc.createdAt)) return true;
  return !isDeepStrictEqual(stored, contributionOf(doc));
}

/**
 * One batch of the backfill, in one store transaction: the next `limit` transactions by id after
 * the stored cursor; each whose stored contribution is missing or out of date is rewritten with
 * compare-and-set (a concurrent write re-runs the batch) and the differences go to the buckets,
 * together with the new cursor. Idempotent: a transaction already current is left alone, so
 * running a batch twice, or beside live traffic, or from several replicas, adds nothing twice.
 */
export async function backfillBatch(deps: Deps, limit = 500): Promise<BackfillBatch> {
  return deps.outbox.commit(async (tx): Promise<BackfillBatch> => {
    const states = tx.collection<BackfillStateDoc>(DASHBOARD_STATE);
    const now = deps.clock.now().toISOString();
    let state = await states.get(BACKFILL_STATE_ID);
    if (!state) {
      state = await states.insert({
        id: BACKFILL_STATE_ID,
        doneVersion: 0,
        runningVersion: AGGREGATES_VERSION,
        cursor: '',
        scanned: 0,
        updated: 0,
        updatedAt: now,
      });
    }
    const fresh = state.runningVersion !== AGGREGATES_VERSION;
    const cursor = fresh ? '' : state.cursor;
    const page = await tx
      .collection<TransactionDoc>(TRANSACTIONS)
      .find({ id: { $gt: cursor } }, { sort: { id: 1 }, limit });
    const updated = await aggregateAll(tx, page.items);
    const done = page.items.length < limit;
    const last = page.items.at(-1)?.id ?? cursor;
    await states.replace(state.id, state.version, {
      doneVersion: done ? AGGREGATES_VERSION : state.doneVersion,
      runningVersion: AGGREGATES_VERSION,
      cursor: done ? '' : last,
      scanned: (fresh || state.cursor === '' ? 0 : state.scanned) + page.items.length,
      updated: (fresh || state.cursor === '' ? 0 : state.updated) + updated,
      updatedAt: now,
    });
    return { scanned: page.items.length, updated, done };
  });
}

/** Brings the transactions' stored contributions up to date; the bucket differences summed per bucket. */
async function aggregateAll(tx: TxScope, docs: TransactionDoc[]): Promise<number> {
  const txs = tx.collection<TransactionDoc>(TRANSACTIONS);
  const sums = new Map<
    string,
    { ref: Omit<DashboardBucketDoc, 'id' | 'version' | 'counters'>; deltas: Record<string, number> }
  >();
  const stale = docs.filter(needsAggregation);
  // One compare-and-set statement for the batch: a transaction written meanwhile re-runs it.
  const stored = await txs.replaceMany(
    stale.map((doc) => ({ id: doc.id, expectedVersion: doc.version, next: withAggregates(doc) })),
  );
  for (const [k, doc] of stale.entries()) {
    const after = stored[k]?.aggregated;
    if (!after) throw new Error(`transaction ${doc.id} was written without its dashboard contribution`);
    for (const [id, { ref, deltas }] of bucketDeltas(doc.aggregated ?? null, after)) {
      let sum = sums.get(id);
      if (!sum) sums.set(id, (sum = { ref, deltas: {} }));
      for (const [k, v] of Object.entries(deltas)) sum.deltas[k] = (sum.deltas[k] ?? 0) + v;
    }
  }
  const buckets = tx.collection<DashboardBucketDoc>(DASHBOARD_BUCKETS);
  const items = [];
  for (const [id, { ref, deltas }] of [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const [k, v] of Object.entries(deltas)) if (v === 0) delete deltas[k];
    if (Object.keys(deltas).length > 0) items.push({ id, init: { ...ref, counters: {} }, deltas });
  }
  await buckets.addToCounters('counters', items);
  return stale.length;
}

/** Whether a finished pass already covers the current rules. */
export async function backfillDone(deps: Pick<CheckoutDeps, 'store'>): Promise<boolean> {
  const state = await deps.store.collection<BackfillStateDoc>(DASHBOARD_STATE).get(BACKFILL_STATE_ID);
  return state?.doneVersion === AGGREGATES_VERSION;
}

/**
 * Runs the backfill to the end (batch after batch, resuming from the stored cursor) unless a
 * finished pass covers the current rules; `force` starts a new pass from the first transaction
 * (a repair: it fixes any transaction whose stored contribution is out of date, and changes
 * nothing otherwise).
 */
export async function runBackfill(
  deps: Deps & Pick<CheckoutDeps, 'store'>,
  opts: { batch?: number; force?: boolean; shouldStop?: () => boolean } = {},
): Promise<{ scanned: number; updated: number; done: boolean }> {
  if (opts.force) {
    const states = deps.store.collection<BackfillStateDoc>(DASHBOARD_STATE);
    const state = await states.get(BACKFILL_STATE_ID);
    if (state)
      await states.replace({
        ...state,
        doneVersion: 0,
        cursor: '',
        updatedAt: deps.clock.now().toISOString(),
      });
  } else if (await backfillDone(deps)) {
    return { scanned: 0, updated: 0, done: true };
  }
  let scanned = 0;
  let updated = 0;
  for (;;) {
    if (opts.shouldStop?.()) return { scanned, updated, done: false };
    const batch = await backfillBatch(deps, opts.batch);
    scanned += batch.scanned;
    updated += batch.updated;
    if (batch.done) {
      deps.logger.info({ scanned, updated }, 'dashboard aggregates backfill complete');
      return { scanned, updated, done: true };
    }
  }
}
