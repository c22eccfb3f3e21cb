import type { TxScope } from '@paymesh/store';
import {
  bucketDeltas,
  contributionOf,
  quarterStart,
  type AggregatedContribution,
  type DashboardBucketDoc,
} from '../domain/dashboard';
import type { TransactionDoc } from '../domain/transaction';
import { DASHBOARD_BUCKETS } from '../store/collections';

type TxBody = Omit<TransactionDoc, 'id' | 'version'>;

/**
 * The body to store for a transaction, with its dashboard contribution (what it adds to the
 * buckets in this state) and creation quarter hour. Every write of a transaction that changes what
 * the dashboard shows stores this and calls {@link addToBuckets} in the same store transaction.
 */
export function withAggregates<B extends TxBody>(
  next: B,
): B & { aggregated: AggregatedContribution; createdQuarter: string } {
  const aggregated = contributionOf(next);
  return { ...next, aggregated, createdQuarter: quarterStart(next.createdAt) };
}

/**
 * Adds `after - before` to the buckets in one statement, in bucket id order (concurrent writers lock bucket rows in
 * the same order, so they wait for each other instead of deadlocking). `before` is the contribution
 * stored on the transaction before this write (absent: nothing was added yet).
 */
export async function addToBuckets(
  tx: Pick<TxScope, 'collection'>,
  before: AggregatedContribution | null | undefined,
  written: { aggregated?: AggregatedContribution | undefined },
): Promise<void> {
  if (!written.aggregated) throw new Error('a transaction was written without its dashboard contribution');
  const deltas = bucketDeltas(before ?? null, written.aggregated);
  const buckets = tx.collection<DashboardBucketDoc>(DASHBOARD_BUCKETS);
  const items = [...deltas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await buckets.addToCounters(
    'counters',
    items.map(([id, d]) => ({ id, init: { ...d.ref, counters: {} }, deltas: d.deltas })),
  );
}
