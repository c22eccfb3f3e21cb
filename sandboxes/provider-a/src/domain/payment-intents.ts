import { noSuch, unexpectedState } from '../errors';
import { newClientSecret, newId } from '../ids';
import type { Account, OperationContext, PaymentIntentRecord, PaymentMethodRecord } from './account';
import { resolvePaymentMethod } from './cards';
import { createCharge } from './charges';
import type { Charge, LastPaymentError, Metadata, PaymentIntent, PaymentIntentStatus } from './types';

/** States in which the intent waits for the buyer (the pay page accepts an outcome). */
export const AWAITING_PAYMENT: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
];
export const CONFIRMABLE: readonly PaymentIntentStatus[] = [
  'requires_confirmation',
  'requires_action',
  'requires_payment_method',
];
export const CANCELABLE: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_capture',
  'requires_confirmation',
  'requires_action',
  'processing',
];

export interface CreatePaymentIntentInput {
  amount: number;
  currency: string;
  metadata: Metadata;
  description: string | null;
  receipt_email: string | null;
  /** `payment_method_types` (older API versions) or `allowed_payment_method_types` (current). */
  payment_method_types: string[] | null;
  allowed_payment_method_types: string[] | null;
  excluded_payment_method_types: string[] | null;
  automatic_payment_methods: { enabled: boolean; allow_redirects?: 'always' | 'never' } | null;
  payment_method: string | null;
  return_url: string | null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
}

export interface ConfirmInput {
  payment_method?: string | null;
  return_url?: string | null;
  receipt_email?: string | null;
}

export interface ConfirmResult {
  intent: PaymentIntent;
  charge: Charge;
  /** Set when the card was declined (the intent is back in requires_payment_method). */
  failure: LastPaymentError | null;
}

/** The types the intent can be paid with: the requested list minus exclusions; card when nothing was asked for. */
function paymentMethodTypes(input: CreatePaymentIntentInput): string[] {
  const requested = input.allowed_payment_method_types ?? input.payment_method_types ?? ['card'];
  const excluded = new Set(input.excluded_payment_method_types ?? []);
  return requested.filter((t) => !excluded.has(t));
}

export function getPaymentIntent(account: Account, id: string, param = 'intent'): PaymentIntentRecord {
  const rec = account.paymentIntents.get(id);
  if (!rec) throw noSuch('payment_intent', id, param);
  return rec;
}

function refreshNextAction(account: Account, rec: PaymentIntentRecord): void {
  const intent = rec.intent;
  intent.next_action = AWAITING_PAYMENT.includes(intent.status)
    ? {
        type: 'redirect_to_url',
        redirect_to_url: { url: account.sandbox.options.payUrl(intent.id), return_url: rec.returnUrl },
      }
    : null;
}

function paymentMethodOrThrow(account: Account, ref: string): PaymentMethodRecord {
  const pm = resolvePaymentMethod(account, ref);
  if (!pm) throw noSuch('PaymentMethod', ref, 'payment_method', 400);
  return pm;
}

export function createPaymentIntent(
  account: Account,
  input: CreatePaymentIntentInput,
  ctx: OperationContext,
): PaymentIntentRecord {
  const pm = input.payment_method ? paymentMethodOrThrow(account, input.payment_method) : null;
  const id = newId('pi');
  const intent: PaymentIntent = {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: input.allowed_payment_method_types,
    amount: input.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: input.automatic_payment_methods,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic',
    client_secret: newClientSecret(id),
    confirmation_method: 'automatic',
    created: account.now(),
    currency: input.currency,
    customer: null,
    description: input.description,
    excluded_payment_method_types: input.excluded_payment_method_types,
    last_payment_error: null,
    latest_charge: null,
    livemode: account.livemode,
    metadata: { ...input.metadata },
    next_action: null,
    on_behalf_of: null,
    payment_method: pm ? pm.method.id : null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
    },
    payment_method_types: paymentMethodTypes(input),
    processing: null,
    receipt_email: input.receipt_email,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: input.statement_descriptor,
    statement_descriptor_suffix: input.statement_descriptor_suffix,
    status: pm ? 'requires_confirmation' : 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  };
  const rec: PaymentIntentRecord = { intent, returnUrl: input.return_url };
  refreshNextAction(account, rec);
  account.paymentIntents.set(id, rec);
  account.own(id);
  account.emit('payment_intent.created', intent, ctx);
  return rec;
}

export function confirmPaymentIntent(
  account: Account,
  id: string,
  input: ConfirmInput,
  ctx: OperationContext,
): ConfirmResult {
  const rec = getPaymentIntent(account, id);
  const intent = rec.intent;
  if (!CONFIRMABLE.includes(intent.status)) {
    const message =
      intent.status === 'succeeded'
        ? 'You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.'
        : `You cannot confirm this PaymentIntent because it has a status of ${intent.status}. ` +
          `Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(', ')}.`;
    throw unexpectedState(message, 'payment_intent_unexpected_state', { payment_intent: structuredClone(intent) });
  }
  const ref = input.payment_method ?? intent.payment_method;
  if (!ref) {
    throw unexpectedState(
      "You cannot confirm this PaymentIntent because it's missing a payment method. " +
        'Update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.',
      'payment_intent_unexpected_state',
      { payment_intent: structuredClone(intent) },
    );
  }
  const pm = paymentMethodOrThrow(account, ref);
  if (input.return_url !== undefined && input.return_url !== null) rec.returnUrl = input.return_url;
  if (input.receipt_email !== undefined) intent.receipt_email = input.receipt_email;

  const charge = createCharge(account, intent, pm);
  intent.latest_charge = charge.id;
  const decline = pm.scenario.decline;
  if (decline) {
    const failure: LastPaymentError = {
      type: 'card_error',
      code: decline.code,
      decline_code: decline.decline_code,
      message: decline.message,
      doc_url: `https://stripe.com/docs/error-codes/${decline.code.replace(/_/g, '-')}`,
      charge: charge.id,
      payment_method: structuredClone(pm.method),
    };
    intent.status = 'requires_payment_method';
    intent.payment_method = null;
    intent.last_payment_error = failure;
    refreshNextAction(account, rec);
    account.emit('charge.failed', charge, ctx);
    account.emit('payment_intent.payment_failed', intent, ctx);
    return { intent, charge, failure };
  }
  intent.status = 'succeeded';
  intent.payment_method = pm.method.id;
  intent.amount_received = intent.amount;
  intent.last_payment_error = null;
  refreshNextAction(account, rec);
  account.emit('charge.succeeded', charge, ctx);
  account.emit('payment_intent.succeeded', intent, ctx);
  return { intent, charge, failure: null };
}

export function cancelPaymentIntent(
  account: Account,
  id: string,
  reason: string | null,
  ctx: OperationContext,
): PaymentIntent {
  const rec = getPaymentIntent(account, id);
  const intent = rec.intent;
  if (!CANCELABLE.includes(intent.status)) {
    throw unexpectedState(
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. ` +
        `Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      'payment_intent_unexpected_state',
      { payment_intent: structuredClone(intent) },
    );
  }
  intent.status = 'canceled';
  intent.canceled_at = account.now();
  intent.cancellation_reason = reason;
  refreshNextAction(account, rec);
  account.emit('payment_intent.canceled', intent, ctx);
  return intent;
}

export interface UpdatePaymentIntentInput {
  amount?: number;
  currency?: string;
  description?: string | null;
  receipt_email?: string | null;
  /** Keys mapped to null are removed; null as a whole clears all metadata. */
  metadata?: Record<string, string | null> | null;
  payment_method?: string;
}

export function updatePaymentIntent(account: Account, id: string, input: UpdatePaymentIntentInput): PaymentIntent {
  const rec = getPaymentIntent(account, id);
  const intent = rec.intent;
  for (const field of ['amount', 'currency', 'payment_method'] as const) {
    if (input[field] !== undefined && !AWAITING_PAYMENT.includes(intent.status)) {
      throw unexpectedState(
        `This PaymentIntent's ${field} could not be updated because it has a status of ${intent.status}. ` +
          `You may only update the ${field} of a PaymentIntent with one of the following statuses: ${AWAITING_PAYMENT.join(', ')}.`,
      );
    }
  }
  const pm = input.payment_method !== undefined ? paymentMethodOrThrow(account, input.payment_method) : null;
  if (input.amount !== undefined) intent.amount = input.amount;
  if (input.currency !== undefined) intent.currency = input.currency;
  if (input.description !== undefined) intent.description = input.description;
  if (input.receipt_email !== undefined) intent.receipt_email = input.receipt_email;
  if (input.metadata === null) intent.metadata = {};
  else if (input.metadata) {
    for (const [k, v] of Object.entries(input.metadata)) {
      if (v === null) delete intent.metadata[k];
      else intent.metadata[k] = v;
    }
  }
  if (pm) {
    intent.payment_method = pm.method.id;
    intent.status = 'requires_confirmation';
  }
  intent.last_payment_error = null;
  refreshNextAction(account, rec);
  return intent;
}
