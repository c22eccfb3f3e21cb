import type { TransactionDoc } from '../domain/transaction';
import { loadTransactionForBuyerAction, type BuyerTransactionRef } from './access';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition } from './transition';

/**
 * Marks a pending transaction as waiting for an asynchronous provider flow (direct debit, wire
 * transfer): sub-state `pending_provider`, integer status stays 0, so no event and no IPN.
 * Repeats are answered as is; any other status is 409 ILLEGAL_TRANSITION.
 */
export async function markTransactionPending(deps: PaymentsDeps, input: BuyerTransactionRef): Promise<TransactionDoc> {
  const doc = await loadTransactionForBuyerAction(deps, input);
  const out = await applyTransition(deps, doc.id, () => ({ trigger: { kind: 'mark_pending' } }));
  return out.doc;
}
