import { invalidParam, noSuch, unexpectedState } from '../errors';
import { newId } from '../ids';
import type { Account, OperationContext } from './account';
import { formatAmount } from './money';
import type { Charge, Metadata, Refund } from './types';

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

export interface CreateRefundInput {
  payment_intent: string | null;
  charge: string | null;
  /** Minor units; null refunds what is left on the charge. */
  amount: number | null;
  reason: string | null;
  metadata: Metadata;
}

function chargeToRefund(account: Account, input: CreateRefundInput): Charge {
  if (input.charge) {
    const charge = account.charges.get(input.charge);
    if (!charge) throw noSuch('charge', input.charge, 'charge', 400);
    if (input.payment_intent && charge.payment_intent !== input.payment_intent) {
      throw invalidParam(`Charge ${charge.id} does not belong to PaymentIntent ${input.payment_intent}.`, 'charge');
    }
    if (charge.status !== 'succeeded')
      throw unexpectedState(`Charge ${charge.id} has not succeeded and cannot be refunded.`, 'charge_not_refundable');
    return charge;
  }
  if (!input.payment_intent) {
    throw invalidParam(
      'One of the following params should be provided for this request: payment_intent or charge.',
      undefined,
      'parameter_missing',
    );
  }
  const rec = account.paymentIntents.get(input.payment_intent);
  if (!rec) throw noSuch('payment_intent', input.payment_intent, 'payment_intent', 400);
  const charge = rec.intent.latest_charge ? account.charges.get(rec.intent.latest_charge) : undefined;
  if (rec.intent.status !== 'succeeded' || !charge || charge.status !== 'succeeded') {
    throw unexpectedState(
      `This PaymentIntent (${rec.intent.id}) does not have a successful charge to refund.`,
      'charge_not_refundable',
    );
  }
  return charge;
}

export function createRefund(account: Account, input: CreateRefundInput, ctx: OperationContext): Refund {
  const charge = chargeToRefund(account, input);
  if (charge.refunded)
    throw unexpectedState(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
  const blocking = [...account.disputes.values()].find((d) => d.charge === charge.id && d.status !== 'won');
  if (blocking)
    throw unexpectedState(`Charge ${charge.id} has been charged back; cannot issue a refund.`, 'charge_disputed');
  const remaining = charge.amount - charge.amount_refunded;
  const amount = input.amount ?? remaining;
  if (amount > remaining) {
    throw unexpectedState(
      `Refund amount (${formatAmount(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatAmount(remaining, charge.currency)})`,
      'amount_too_large',
      { param: 'amount' },
    );
  }
  const refund: Refund = {
    id: newId('re'),
    object: 'refund',
    amount,
    balance_transaction: null,
    charge: charge.id,
    created: account.now(),
    currency: charge.currency,
    metadata: { ...input.metadata },
    payment_intent: charge.payment_intent,
    reason: input.reason,
    receipt_number: null,
    status: 'succeeded',
  };
  account.refunds.set(refund.id, refund);
  account.own(refund.id);
  const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded >= charge.amount;
  account.emit('refund.created', refund, ctx);
  account.emit('charge.refunded', charge, ctx, previous);
  return refund;
}
