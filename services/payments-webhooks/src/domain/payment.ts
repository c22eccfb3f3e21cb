import type { SealedValue } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import type { Mode, ProviderType } from './provider';

/** Normalized payment outcome, as in the `payments.payment.status_reported` event. */
export type PaymentOutcome = 'succeeded' | 'failed' | 'cancelled' | 'pending';

/**
 * The provider-side payment started for one transaction. `transactionId` is unique (one payment per
 * transaction), and so is `providerPaymentId` per provider record.
 */
export interface PaymentDoc extends StoredDoc {
  organizationId: string;
  siteId: string;
  mode: Mode;
  providerId: string;
  providerType: ProviderType;
  transactionId: string;
  providerPaymentId: string;
  amount: number;
  currency: string;
  /** Our last known view, from the provider's answers and authentic webhooks. */
  status: PaymentOutcome;
  redirectUrl: string | null;
  /** Provider client secret for embedded flows, sealed (AAD = payment id). */
  clientSecret: SealedValue | null;
  /** Provider time of the last applied webhook event. */
  lastEventAt: string | null;
  /**
   * When the reconciler next asks the provider about it while it is pending or failed; null (or
   * absent, for payments started before reconciliation existed) when it is not to be asked.
   */
  reconcileAt?: string | null;
  /** Looks the reconciler made so far. */
  reconcileLooks?: number;
  createdAt: string;
  updatedAt: string;
}

const TERMINAL: ReadonlySet<PaymentOutcome> = new Set(['succeeded', 'cancelled']);

/**
 * Our stored view after a reported outcome. Succeeded and cancelled are final for this record
 * (refunds and disputes are separate facts); a failure may still be followed by success because
 * the buyer can retry on the provider's page. Checkout owns the transaction state machine; this
 * only keeps the payment record sensible when events arrive out of order.
 */
export function nextPaymentStatus(current: PaymentOutcome, reported: PaymentOutcome): PaymentOutcome {
  if (TERMINAL.has(current)) return current;
  if (reported === 'pending') return current;
  return reported;
}
