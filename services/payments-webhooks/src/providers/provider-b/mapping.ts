import type { ChargebackStatus } from '@paymesh/contracts';
import type { PaymentStatus } from '@mollie/api-client';
import type { PaymentOutcome } from '../../domain/payment';

/**
 * provider_b wire words -> ours. Payment statuses and chargeback states are each mapped in one
 * switch here and nowhere else (docs/providers.md, "provider_b").
 */

/** Outcome of a payment status: paid -> succeeded, failed -> failed, canceled / expired -> cancelled. */
export function outcomeOfStatus(status: `${PaymentStatus}` | (string & {})): PaymentOutcome {
  switch (status) {
    case 'paid':
      return 'succeeded';
    case 'failed':
      return 'failed';
    case 'canceled':
    case 'expired':
      return 'cancelled';
    case 'open':
    case 'pending':
    case 'authorized':
      return 'pending';
    default:
      // Statuses newer than this mapping: not settled; a later callback settles it.
      return 'pending';
  }
}

/** Refund statuses whose money has gone back to the buyer; the others are not (yet) a refund. */
export function refundCompleted(status: string): boolean {
  return status === 'refunded';
}

/**
 * Our state of a chargeback. The provider has no dispute process states: a chargeback is the money
 * taken back (open), `reversedAt` means it was reversed in the merchant's favour (won), and a
 * chargeback settled (`settlementId`) without a reversal is final (lost).
 */
export function chargebackStatusOf(chargeback: {
  reversedAt?: string | null;
  settlementId?: string | null;
}): ChargebackStatus {
  if (chargeback.reversedAt) return 'won';
  if (chargeback.settlementId) return 'lost';
  return 'open';
}

/** Currencies the provider writes without decimals; all others it takes have two. */
const ZERO_DECIMAL: ReadonlySet<string> = new Set(['JPY', 'ISK']);

/** Minor units -> the provider's amount `{currency, value: "10.00"}`. */
export function toAmount(minor: number, currency: string): { currency: string; value: string } {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL.has(c)) return { currency: c, value: String(minor) };
  const abs = Math.abs(minor);
  return {
    currency: c,
    value: `${minor < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`,
  };
}

/** The provider's amount -> minor units; null when the value is not a plain decimal of the currency's precision. */
export function toMinor(amount: { currency: string; value: string }): number | null {
  const zero = ZERO_DECIMAL.has(amount.currency.toUpperCase());
  const m = (zero ? /^(\d{1,12})$/ : /^(\d{1,12})\.(\d{2})$/).exec(amount.value);
  if (!m) return null;
  return zero ? Number(m[1]) : Number(m[1]) * 100 + Number(m[2]);
}
