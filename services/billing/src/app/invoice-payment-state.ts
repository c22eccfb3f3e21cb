import type { InvoiceDoc } from '../domain/invoice';
import type { PaymentState } from '../domain/invoice-payments';

/** The payment side of an invoice document (older documents have no reversals yet). */
export function paymentStateOf(doc: Pick<InvoiceDoc, 'totals' | 'payments' | 'paymentReversals'>): PaymentState {
  return { total: doc.totals.gross, payments: doc.payments, paymentReversals: doc.paymentReversals ?? [] };
}
