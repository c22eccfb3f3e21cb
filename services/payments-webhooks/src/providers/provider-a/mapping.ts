import type Stripe from 'stripe';
import type { ChargebackStatus } from '@paymesh/contracts';
import type { PaymentOutcome } from '../../domain/payment';

/**
 * provider_a wire words -> our outcomes. Event types and intent statuses are each mapped in one
 * switch here and nowhere else.
 */

/** Event types the platform subscribes to when it registers the webhook endpoint itself. */
export const WEBHOOK_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  // Refunds and disputes: recorded on the transaction (see docs/adr/0038-refunds-and-disputes-provider-a.md).
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const satisfies readonly Stripe.WebhookEndpointCreateParams.EnabledEvent[];

/** Outcome an event reports for its payment intent; null for events acknowledged without effect. */
export function outcomeOfEvent(type: string): PaymentOutcome | null {
  switch (type) {
    case 'payment_intent.succeeded':
      return 'succeeded';
    case 'payment_intent.payment_failed':
      return 'failed';
    case 'payment_intent.canceled':
      return 'cancelled';
    default:
      return null;
  }
}

/**
 * Outcome of a payment intent's current status. A declined attempt leaves the intent in
 * `requires_payment_method` (the buyer may try another card), so it reads as pending here; the
 * failure itself is reported by the `payment_intent.payment_failed` event.
 */
export function outcomeOfIntentStatus(status: Stripe.PaymentIntent.Status): PaymentOutcome {
  switch (status) {
    case 'succeeded':
      return 'succeeded';
    case 'canceled':
      return 'cancelled';
    case 'requires_payment_method':
    case 'requires_confirmation':
    case 'requires_action':
    case 'processing':
    case 'requires_capture':
      return 'pending';
    default:
      // Statuses newer than this mapping: unknown means not settled; the webhook settles it.
      return 'pending';
  }
}

/** Which adjustment an event type reports; null for the others. */
export function adjustmentKindOfEvent(type: string): 'refund' | 'dispute' | null {
  switch (type) {
    case 'charge.refunded':
      return 'refund';
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
      return 'dispute';
    default:
      return null;
  }
}

/**
 * Our chargeback state of a provider_a dispute status. Inquiries (`warning_*`) count like
 * disputes; an inquiry closed without a chargeback (`warning_closed`) and a dispute settled by a
 * refund (`charge_refunded`) leave the payment standing, like `won`. Null for statuses newer than
 * this mapping (acknowledged, no effect).
 */
export function chargebackStatusOf(status: string): ChargebackStatus | null {
  switch (status) {
    case 'needs_response':
    case 'warning_needs_response':
      return 'open';
    case 'under_review':
    case 'warning_under_review':
      return 'under_review';
    case 'won':
    case 'warning_closed':
    case 'prevented':
      return 'won';
    case 'lost':
      return 'lost';
    default:
      return null;
  }
}
