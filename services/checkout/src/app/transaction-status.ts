import { fillTransactionId } from '../domain/transaction';
import { loadTransaction } from './access';
import type { PaymentsDeps } from './payments-deps';

/** Status view of a transaction; empty `externalReference` and `returnUrl` are left out. */
export interface TransactionStatusView {
  status: number;
  externalReference?: string;
  amount: number;
  currency: string;
  returnUrl?: string;
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
    createdAt: doc.createdAt,
  };
}
