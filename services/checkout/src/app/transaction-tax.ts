import type { TransactionTaxView } from '@paymesh/contracts';
import type { Mode } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { loadTransactionForOrg } from './access';
import type { PaymentsDeps } from './payments-deps';

export function transactionTaxViewOf(doc: TransactionDoc): TransactionTaxView {
  const tax = doc.tax ?? null;
  return { transactionId: doc.id, status: tax ? 'computed' : 'not_computed', tax, input: doc.taxInput ?? null };
}

/** The tax stored with a transaction (Admin); `not_computed` for manual transactions and tax outages. */
export async function getTransactionTax(
  deps: PaymentsDeps,
  ref: { organizationId: string; mode: Mode; id: string },
): Promise<TransactionTaxView> {
  return transactionTaxViewOf(await loadTransactionForOrg(deps, ref.organizationId, ref.mode, ref.id));
}
