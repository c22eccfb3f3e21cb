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
  /**
   * When the platform first started capturing this payment (providers the merchant captures, after
   * the buyer's approval). Set by compare-and-set while the payment is pending, before the provider
   * is asked; a payment with it is never cancelled here, and a cancelled one is never captured.
   */
  captureStartedAt?: string | null;
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

/**
 * Whether the platform may capture the payment now: only while it is pending here. A payment
 * cancelled here (its transaction abandoned or cancelled in checkout) is never captured, whatever
 * the buyer does at the provider afterwards.
 */
export function mayCapture(p: Pick<PaymentDoc, 'status'>): boolean {
  return p.status === 'pending';
}

/**
 * Whether a cancel may close the payment here: not once it succeeded, nor once a capture was
 * started (money may move).
 */
export function mayCloseAsCancelled(p: Pick<PaymentDoc, 'status' | 'captureStartedAt'>): boolean {
  return p.status === 'cancelled' || (p.status !== 'succeeded' && !p.captureStartedAt);
}
