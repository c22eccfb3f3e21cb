import { createHash } from 'node:crypto';
import { newId } from '../ids';
import type { Account, PaymentMethodRecord } from './account';
import type { PaymentMethod } from './types';

export interface Decline {
  /** Error code (card_declined, expired_card, ...). */
  code: string;
  decline_code: string;
  message: string;
}

export interface CardScenario {
  brand: string;
  last4: string;
  /** Undefined: the charge succeeds. */
  decline?: Decline;
}

const declined = (decline_code: string, message = 'Your card was declined.', code = 'card_declined'): Decline => ({
  code,
  decline_code,
  message,
});

/** The provider's well-known test payment method tokens. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, CardScenario>> = Object.freeze({
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', decline: declined('generic_decline') },
  pm_card_visa_chargeDeclined: { brand: 'visa', last4: '0002', decline: declined('generic_decline') },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    decline: declined('insufficient_funds', 'Your card has insufficient funds.'),
  },
  pm_card_visa_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    decline: declined('insufficient_funds', 'Your card has insufficient funds.'),
  },
  pm_card_chargeDeclinedExpiredCard: {
    brand: 'visa',
    last4: '0069',
    decline: declined('expired_card', 'Your card has expired.', 'expired_card'),
  },
  pm_card_visa_chargeDeclinedLostCard: { brand: 'visa', last4: '9987', decline: declined('lost_card') },
  pm_card_visa_chargeDeclinedStolenCard: { brand: 'visa', last4: '9979', decline: declined('stolen_card') },
  pm_card_visa_chargeDeclinedFraudulent: { brand: 'visa', last4: '0019', decline: declined('fraudulent') },
});

/** Scenarios used by the buyer-facing pay page buttons. */
export const PAY_PAGE_METHODS = { pay: 'pm_card_visa', decline: 'pm_card_visa_chargeDeclined' } as const;

/**
 * Turns a payment method reference into a stored payment method of the account: a test token
 * (pm_card_visa, ...) mints a new pm_ object like the real provider does; a pm_ id the account
 * already has is reused. Returns undefined for anything else.
 */
export function resolvePaymentMethod(account: Account, ref: string): PaymentMethodRecord | undefined {
  const existing = account.paymentMethods.get(ref);
  if (existing) return existing;
  const scenario = TEST_PAYMENT_METHODS[ref];
  if (!scenario) return undefined;
  const method: PaymentMethod = {
    id: newId('pm'),
    object: 'payment_method',
    type: 'card',
    card: {
      brand: scenario.brand,
      last4: scenario.last4,
      exp_month: 12,
      exp_year: new Date(account.now() * 1000).getUTCFullYear() + 3,
      country: 'US',
      funding: ref.includes('debit') ? 'debit' : 'credit',
      fingerprint: createHash('sha256').update(`${scenario.brand}:${scenario.last4}`).digest('base64url').slice(0, 16),
    },
    billing_details: { address: null, email: null, name: null, phone: null },
    created: account.now(),
    customer: null,
    livemode: account.livemode,
    metadata: {},
  };
  const record: PaymentMethodRecord = { method, scenario };
  account.paymentMethods.set(method.id, record);
  account.own(method.id);
  return record;
}
