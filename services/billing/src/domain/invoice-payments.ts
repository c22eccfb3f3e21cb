import type { InvoicePayment, InvoicePaymentReversal } from '@paymesh/contracts';

/** The payment side of an invoice: what was paid and what of it was reversed. */
export interface PaymentState {
  /** Gross total, minor units. */
  total: number;
  payments: readonly InvoicePayment[];
  paymentReversals: readonly InvoicePaymentReversal[];
}

export interface Settlement {
  /** Payments minus reversed payments. */
  amountPaid: number;
  /** Outstanding: total - payments + reversed payments (never below 0). */
  amountDue: number;
  /** `paid` when nothing is outstanding, `partially_paid` when some is paid, else `issued`. */
  status: 'issued' | 'partially_paid' | 'paid';
}

export function settlementOf(s: PaymentState): Settlement {
  const paid = s.payments.reduce((n, p) => n + p.amount, 0);
  const reversed = s.paymentReversals.reduce((n, r) => n + r.amount, 0);
  const amountPaid = paid - reversed;
  const amountDue = Math.max(0, s.total - amountPaid);
  const status = amountDue === 0 ? 'paid' : amountPaid > 0 ? 'partially_paid' : 'issued';
  return { amountPaid, amountDue, status };
}

/**
 * Records the payment of a completed transaction; null when that transaction's payment is
 * recorded already (idempotent by transaction id).
 */
export function withPayment<T extends PaymentState>(s: T, payment: InvoicePayment): T | null {
  if (s.payments.some((p) => p.transactionId === payment.transactionId)) return null;
  return { ...s, payments: [...s.payments, payment] };
}

/** What of a transaction's payment is not reversed yet. */
export function reversibleAmount(s: PaymentState, transactionId: string): number {
  const paid = s.payments.filter((p) => p.transactionId === transactionId).reduce((n, p) => n + p.amount, 0);
  const reversed = s.paymentReversals
    .filter((r) => r.transactionId === transactionId)
    .reduce((n, r) => n + r.amount, 0);
  return Math.max(0, paid - reversed);
}

/** The reversal source key of a provider refund: one reversal and one credit note per refund. */
export function refundSource(refundId: string): string {
  return `refund:${refundId}`;
}

/**
 * What of a transaction's payment a status change to refunded (3) still has to reverse: what is
 * left of the payment less the refunds recorded on the transaction whose own reversal (from their
 * refund event, see {@link refundSource}) has not arrived yet. A status 3 reached through provider
 * refunds is thus covered by the refunds alone; one set without a refund record reverses the rest.
 */
export function uncoveredByRefunds(
  s: PaymentState,
  transactionId: string,
  refunds: readonly { refundId: string; amount: number }[],
): number {
  const reversed = new Set(s.paymentReversals.map((r) => r.sourceEventId));
  const pending = refunds.filter((r) => !reversed.has(refundSource(r.refundId))).reduce((n, r) => n + r.amount, 0);
  return Math.max(0, reversibleAmount(s, transactionId) - pending);
}

/**
 * Reverses (at most `limit` of) what is left of a transaction's payment for a refund or a lost
 * dispute; null when the source event was recorded already, or nothing of that transaction's
 * payment is left to reverse (never paid through this invoice, or reversed already by an earlier
 * event).
 */
export function withReversal<T extends PaymentState>(
  s: T,
  r: Omit<InvoicePaymentReversal, 'amount' | 'creditNoteId'> & { creditNoteId: string },
  limit = Number.POSITIVE_INFINITY,
): { state: T; reversal: InvoicePaymentReversal } | null {
  if (s.paymentReversals.some((x) => x.sourceEventId === r.sourceEventId)) return null;
  const amount = Math.min(reversibleAmount(s, r.transactionId), limit);
  if (amount <= 0) return null;
  const reversal: InvoicePaymentReversal = { ...r, amount };
  return { state: { ...s, paymentReversals: [...s.paymentReversals, reversal] }, reversal };
}
