import { noSuch, unexpectedState } from '../errors';
import { newId } from '../ids';
import type { Account, OperationContext } from './account';
import type { Dispute } from './types';

export const DISPUTE_REASONS = [
  'bank_cannot_process',
  'check_returned',
  'credit_not_processed',
  'customer_initiated',
  'debit_not_authorized',
  'duplicate',
  'fraudulent',
  'general',
  'incorrect_account_details',
  'insufficient_funds',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'unrecognized',
] as const;

const EVIDENCE_WINDOW_SECONDS = 7 * 24 * 3600;

/** Sandbox control: the buyer's bank disputes a successful charge. Emits charge.dispute.created. */
export function openDispute(account: Account, chargeId: string, reason: string, ctx: OperationContext): Dispute {
  const charge = account.charges.get(chargeId);
  if (!charge) throw noSuch('charge', chargeId, 'charge');
  if (charge.status !== 'succeeded')
    throw unexpectedState(`Charge ${charge.id} did not succeed and cannot be disputed.`, 'charge_not_disputable');
  if (charge.disputed) throw unexpectedState(`Charge ${charge.id} is already disputed.`, 'charge_already_disputed');
  const now = account.now();
  const dispute: Dispute = {
    id: newId('dp'),
    object: 'dispute',
    amount: charge.amount - charge.amount_refunded,
    balance_transactions: [],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    evidence_details: {
      due_by: now + EVIDENCE_WINDOW_SECONDS,
      has_evidence: false,
      past_due: false,
      submission_count: 0,
    },
    is_charge_refundable: false,
    livemode: account.livemode,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason,
    status: 'needs_response',
  };
  charge.disputed = true;
  account.disputes.set(dispute.id, dispute);
  account.own(dispute.id);
  account.emit('charge.dispute.created', dispute, ctx);
  return dispute;
}

/** Sandbox control: the bank decides the dispute. Emits charge.dispute.closed. */
export function closeDispute(
  account: Account,
  disputeId: string,
  outcome: 'won' | 'lost',
  ctx: OperationContext,
): Dispute {
  const dispute = account.disputes.get(disputeId);
  if (!dispute) throw noSuch('dispute', disputeId, 'dispute');
  if (dispute.status !== 'needs_response') {
    throw unexpectedState(
      `Dispute ${dispute.id} is already closed with status ${dispute.status}.`,
      'dispute_already_closed',
    );
  }
  const previous = { status: dispute.status };
  dispute.status = outcome;
  account.emit('charge.dispute.closed', dispute, ctx, previous);
  return dispute;
}
