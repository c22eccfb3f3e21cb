import { newId } from '../ids';
import type { Account, PaymentMethodRecord } from './account';
import type { Charge, PaymentIntent } from './types';

/** Records the charge made by confirming `intent` with `pm`; its status follows the card scenario. */
export function createCharge(account: Account, intent: PaymentIntent, pm: PaymentMethodRecord): Charge {
  const decline = pm.scenario.decline;
  const charge: Charge = {
    id: newId('ch'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: decline ? 0 : intent.amount,
    amount_refunded: 0,
    balance_transaction: null,
    billing_details: pm.method.billing_details,
    captured: !decline,
    created: account.now(),
    currency: intent.currency,
    customer: null,
    description: intent.description,
    disputed: false,
    failure_code: decline ? decline.code : null,
    failure_message: decline ? decline.message : null,
    livemode: account.livemode,
    metadata: { ...intent.metadata },
    outcome: decline
      ? {
          network_status: 'declined_by_network',
          reason: decline.decline_code,
          risk_level: 'normal',
          seller_message: 'The bank did not return any further details with this decline.',
          type: 'issuer_declined',
        }
      : {
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: !decline,
    payment_intent: intent.id,
    payment_method: pm.method.id,
    payment_method_details: { type: 'card', card: { ...pm.method.card } },
    receipt_email: intent.receipt_email,
    refunded: false,
    status: decline ? 'failed' : 'succeeded',
  };
  account.charges.set(charge.id, charge);
  account.own(charge.id);
  return charge;
}
