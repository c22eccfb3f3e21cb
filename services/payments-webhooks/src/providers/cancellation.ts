import { ConflictError, ErrorCode } from '@paymesh/core';
import type { PaymentOutcome } from '../domain/payment';

/** A cancellation refused because the payment already succeeded (`captured`, or `collected` for a debit). */
export function alreadySettled(settled: 'captured' | 'collected' = 'captured'): ConflictError {
  return new ConflictError(`payment already ${settled} at the provider; refund it instead`, {
    code: ErrorCode.PAYMENT_ALREADY_CAPTURED,
  });
}

/**
 * What a payment's state at the provider means for a cancellation the provider would not do: one
 * cancelled already is done, one that succeeded is refused (refund it instead), and any other state
 * cannot be cancelled.
 */
export function settleRefusedCancellation(
  current: { status: string; outcome: PaymentOutcome },
  settled: 'captured' | 'collected' = 'captured',
): void {
  if (current.outcome === 'cancelled') return;
  if (current.outcome === 'succeeded') throw alreadySettled(settled);
  throw new ConflictError(`payment not cancellable at the provider in status ${current.status}`, {
    code: ErrorCode.CANCEL_REFUSED,
  });
}
