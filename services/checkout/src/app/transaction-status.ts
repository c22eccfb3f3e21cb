import { fillTransactionId } from '../domain/transaction';
import { loadTransaction } from './access';
import type { PaymentsDeps } from './payments-deps';

/** Status view of a transaction; empty `externalReference`, `returnUrl` and `cancelUrl` are left out. */
export interface TransactionStatusView {
  status: number;
  externalReference?: string;
  amount: number;
  currency: string;
  returnUrl?: string;
  /** Where the hosted checkout sends a buyer whose payment was canceled or failed. */
  cancelUrl?: string;
  createdAt: string;
}

/** Status view (no origin rule: merchants' servers and return pages read it). */
export async function getTransactionStatus(deps: PaymentsDeps, transactionId: string): Promise<TransactionStatusView> {
  const doc = await loadTransaction(deps, transactionId);
  return {
    status: doc.status,
    ...(doc.externalReference ? { externalReference: doc.externalReference } : {}),
    amount: doc.amount,
    currency: doc.currency,
    ...(doc.returnUrl ? { returnUrl: fillTransactionId(doc.returnUrl, doc.id) } : {}),
    ...(doc.cancelUrl ? { cancelUrl: fillTransactionId(doc.cancelUrl, doc.id) } : {}),
    createdAt: doc.createdAt,
  };
}
