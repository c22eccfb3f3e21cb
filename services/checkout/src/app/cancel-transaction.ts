import { ConflictError, isDomainError, ErrorCode } from '@paymesh/core';
import type { TransactionDoc } from '../domain/transaction';
import { transition } from '../domain/transaction-state';
import { loadTransactionForBuyerAction, type BuyerTransactionRef } from './access';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition } from './transition';

/** A provider payment exists or may exist, so the provider must cancel it first. */
export function providerMayHavePayment(doc: TransactionDoc): boolean {
  if (doc.providerId === null) return false;
  if (doc.providerPaymentId !== null) return true;
  return doc.providerPayment.state !== 'none' && doc.providerPayment.state !== 'failed';
}

/** Asks the provider to cancel the payment of a transaction (by the transaction's ID). */
export function cancelProviderPayment(
  deps: Pick<PaymentsDeps, 'payments'>,
  doc: Pick<TransactionDoc, 'organizationId' | 'id'>,
  providerId: string,
): Promise<{ cancelled: boolean }> {
  return deps.payments.cancelPayment({ organizationId: doc.organizationId, providerId, transactionId: doc.id });
}

/**
 * Buyer cancels a pending transaction before the provider captured it: the provider cancels its
 * payment first (a refusal, e.g. already captured, is 409 CANCEL_REFUSED and changes nothing),
 * then the transaction moves to canceled (-2). Repeating a cancel answers the canceled state.
 */
export async function cancelTransaction(deps: PaymentsDeps, input: BuyerTransactionRef): Promise<TransactionDoc> {
  const doc = await loadTransactionForBuyerAction(deps, input);
  // Fails fast (409 ILLEGAL_TRANSITION) before touching the provider; repeats are answered as is.
  if (transition({ status: doc.status, subState: doc.subState }, { kind: 'cancel' }).kind === 'unchanged') return doc;
  if (doc.providerId !== null && providerMayHavePayment(doc)) {
    try {
      const res = await cancelProviderPayment(deps, doc, doc.providerId);
      if (!res.cancelled) {
        throw new ConflictError('the payment provider could not cancel the payment (it may already be captured)', {
          code: ErrorCode.CANCEL_REFUSED,
        });
      }
    } catch (err) {
      // Not found at the provider side: no payment was ever created, so there is nothing to cancel there.
      if (!(isDomainError(err) && err.kind === 'not_found')) throw err;
      // ...unless the payment is being started right now: it may appear in a moment.
      if (doc.providerPayment.state === 'requested') {
        throw new ConflictError('the payment is still being started at the provider; retry the cancel shortly', {
          code: ErrorCode.PAYMENT_STARTING,
        });
      }
      deps.logger.info({ transactionId: doc.id }, 'no provider payment to cancel');
    }
  }
  const out = await applyTransition(deps, doc.id, () => ({ trigger: { kind: 'cancel' } }));
  return out.doc;
}
