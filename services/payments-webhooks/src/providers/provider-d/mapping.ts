import type { ChargebackStatus } from '@paymesh/contracts';
import type { PaymentOutcome } from '../../domain/payment';

/**
 * provider_d wire words -> ours. Event types, capture statuses and dispute states are each mapped
 * in one switch here and nowhere else (docs/providers.md, "provider_d").
 */

/** What an event type means for us. */
export type EventFamily = 'order_approved' | 'order_completed' | 'capture' | 'capture_refunded' | 'dispute' | 'other';

export function familyOf(eventType: string): EventFamily {
  switch (eventType) {
    case 'CHECKOUT.ORDER.APPROVED':
      return 'order_approved';
    case 'CHECKOUT.ORDER.COMPLETED':
      return 'order_completed';
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED':
    case 'PAYMENT.CAPTURE.PENDING':
      return 'capture';
    case 'PAYMENT.CAPTURE.REFUNDED':
      return 'capture_refunded';
    case 'CUSTOMER.DISPUTE.CREATED':
    case 'CUSTOMER.DISPUTE.UPDATED':
    case 'CUSTOMER.DISPUTE.RESOLVED':
      return 'dispute';
    default:
      // Types newer than this mapping (or ones we do not act on): recorded, no effect.
      return 'other';
  }
}

/** Outcome of a capture status: COMPLETED (and its refunded follow-ups) succeeded, DECLINED / DENIED / FAILED failed. */
export function outcomeOfCapture(status: string): PaymentOutcome {
  switch (status) {
    case 'COMPLETED':
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
      return 'succeeded';
    case 'DECLINED':
    case 'DENIED':
    case 'FAILED':
      return 'failed';
    default:
      // PENDING and newer statuses: not settled yet.
      return 'pending';
  }
}

/** Whether an order without a capture waits for the merchant's capture: the buyer approved it. */
export function orderAwaitsCapture(status: string): boolean {
  return status === 'APPROVED';
}

/** Outcome of an order status: orders only settle through their capture; VOIDED is cancelled. */
export function outcomeOfOrder(status: string): PaymentOutcome {
  return status === 'VOIDED' ? 'cancelled' : 'pending';
}

/**
 * Our state of a dispute: RESOLVED in the buyer's favour is lost (RESOLVED_WITH_PAYOUT too; ACCEPTED
 * is the merchant accepting the claim), in the seller's favour or cancelled by the buyer is won;
 * every other state keeps it open (UNDER_REVIEW and the waiting states are under review).
 */
export function disputeStatusOf(status: string, outcomeCode: string | null): ChargebackStatus {
  if (status === 'RESOLVED') {
    switch (outcomeCode) {
      case 'RESOLVED_SELLER_FAVOUR':
      case 'CANCELED_BY_BUYER':
      case 'DENIED':
        return 'won';
      case 'RESOLVED_BUYER_FAVOUR':
      case 'RESOLVED_WITH_PAYOUT':
        return 'lost';
      case 'ACCEPTED':
        return 'accepted';
      default:
        return 'lost';
    }
  }
  switch (status) {
    case 'UNDER_REVIEW':
    case 'WAITING_FOR_SELLER_RESPONSE':
    case 'WAITING_FOR_BUYER_RESPONSE':
      return 'under_review';
    default:
      return 'open';
  }
}

/** Currencies the provider writes without decimals; all others it takes have two. */
const ZERO_DECIMAL: ReadonlySet<string> = new Set(['HUF', 'JPY', 'TWD']);

/** Minor units -> the provider's money `{currency_code, value: "10.00"}`. */
export function toMoney(minor: number, currency: string): { currency_code: string; value: string } {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL.has(c)) return { currency_code: c, value: String(minor) };
  return { currency_code: c, value: `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}` };
}

/** The provider's money -> minor units; null when the value is not a plain decimal of the currency's precision. */
export function toMinor(m: { currency_code: string; value: string }): number | null {
  const zero = ZERO_DECIMAL.has(m.currency_code.toUpperCase());
  const r = (zero ? /^(\d{1,12})$/ : /^(\d{1,12})\.(\d{2})$/).exec(m.value);
  if (!r) return null;
  return zero ? Number(r[1]) : Number(r[1]) * 100 + Number(r[2]);
}
