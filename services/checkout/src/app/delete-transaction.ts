import { ConflictError, ErrorCode } from '@paymesh/core';
import type { Mode } from '../domain/site';
import { isDeletable, type TransactionDoc } from '../domain/transaction';
import { TRANSACTIONS } from '../store/collections';
import { loadTransactionForOrg } from './access';
import { addToBuckets, withAggregates } from './dashboard-aggregates';
import type { PaymentsDeps } from './payments-deps';

function refuse(doc: TransactionDoc): never {
  throw new ConflictError(
    `transaction in status ${doc.status} cannot be deleted: only initiated, canceled or failed transactions without a provider payment can`,
    { code: ErrorCode.TRANSACTION_NOT_DELETABLE },
  );
}

/**
 * Soft-deletes a transaction that never moved money and never reached a provider (see
 * `isDeletable`); it disappears from lists, reads and the status view but stays stored for audit.
 */
export async function deleteTransaction(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
): Promise<void> {
  const current = await loadTransactionForOrg(deps, ref.organizationId, ref.mode, ref.id);
  if (!isDeletable(current)) refuse(current);
  const now = deps.clock.now().toISOString();
  // The dashboard stops counting it in the same store transaction.
  await deps.outbox.commit(async (tx) => {
    const cur = await tx.collection<TransactionDoc>(TRANSACTIONS).get(current.id);
    if (!cur || cur.deletedAt) return;
    if (!isDeletable(cur)) refuse(cur);
    const stored = await tx
      .collection<TransactionDoc>(TRANSACTIONS)
      .replace(withAggregates({ ...cur, deletedAt: now, updatedAt: now }));
    await addToBuckets(tx, cur.aggregated, stored);
  });
  deps.logger.info({ transactionId: current.id, organizationId: ref.organizationId }, 'transaction deleted');
}
