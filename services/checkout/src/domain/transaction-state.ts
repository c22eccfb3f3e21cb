import { TransactionStatus as S, type TransactionStatusCode } from '@paymesh/contracts';
import { ConflictError, ValidationError, ErrorCode } from '@paymesh/core';

/**
 * The transaction state machine: integer status codes of the interface specification plus the
 * finer sub-state kept for the admin record. Pure: no I/O, no clock.
 *
 * -2 canceled, -1 initiated, 0 pending, 1 completed, 2 failed, 3 refunded, 4 disputed.
 * `pending_provider` (after mark-pending, asynchronous flows) is a sub-state of 0, so the status
 * view and IPN show 0 for it and no IPN fires when only the sub-state changes.
 */
export const TX_STATUSES = [S.canceled, S.initiated, S.pending, S.completed, S.failed, S.refunded, S.disputed] as const;
export type TxStatus = TransactionStatusCode;

export const SUB_STATES = ['pending_provider'] as const;
export type SubState = (typeof SUB_STATES)[number] | null;

export interface TxState {
  status: TxStatus;
  subState: SubState;
}

export const STATUS_NAMES: Readonly<Record<TxStatus, string>> = {
  [S.canceled]: 'canceled',
  [S.initiated]: 'initiated',
  [S.pending]: 'pending',
  [S.completed]: 'completed',
  [S.failed]: 'failed',
  [S.refunded]: 'refunded',
  [S.disputed]: 'disputed',
};

export function isTxStatus(value: number): value is TxStatus {
  return (TX_STATUSES as readonly number[]).includes(value);
}

/** Normalized provider outcome (`payments.payment.status_reported`). */
export type ProviderOutcome = 'succeeded' | 'failed' | 'cancelled' | 'pending';

/** What moves a transaction. Creation triggers have no current state; see {@link initialState}. */
export type Trigger =
  | { kind: 'cancel' }
  /** A pending transaction abandoned by the buyer expires (after the provider cancelled its payment, if any). */
  | { kind: 'expire' }
  | { kind: 'mark_pending' }
  | { kind: 'provider_outcome'; outcome: ProviderOutcome }
  /** The provider refused to start the payment (nothing was created there). */
  | { kind: 'payment_start_failed' }
  /**
   * The provider refunded (part of) the payment. `full`: the refunded total reached the amount.
   * Recorded on the transaction only: a refund never changes the status by itself.
   */
  | { kind: 'provider_refund'; full: boolean }
  /** A provider dispute (chargeback) was opened or changed state. */
  | { kind: 'provider_dispute'; status: 'open' | 'under_review' | 'won' | 'lost' | 'accepted' }
  /** An operator decided a recorded chargeback (PATCH /transactions/:id/chargeback/:chargebackId); same rules as the provider's. */
  | { kind: 'manual_dispute'; status: 'open' | 'under_review' | 'won' | 'lost' | 'accepted' }
  /**
   * An operator sets the status of a transaction that no provider payment backs, or marks a
   * completed transaction refunded (3). `refundedInFull`: the recorded refunds cover the amount.
   */
  | { kind: 'manual_update'; to: TxStatus; providerBacked: boolean; refundedInFull?: boolean };

export type CreationTrigger =
  { kind: 'create' } | { kind: 'create_manual'; status: typeof S.initiated | typeof S.completed };

/** Name of a trigger as recorded in the status history. */
export function triggerName(t: Trigger | CreationTrigger): string {
  switch (t.kind) {
    case 'provider_outcome':
      return `provider_${t.outcome}`;
    case 'provider_dispute':
      return `provider_dispute_${t.status}`;
    case 'manual_dispute':
      return `manual_dispute_${t.status}`;
    default:
      return t.kind;
  }
}

/** A transition the rules forbid; never applied. 409 with code ILLEGAL_TRANSITION. */
export class IllegalTransitionError extends ConflictError {
  readonly from: TxState;
  readonly trigger: string;
  constructor(from: TxState, trigger: Trigger, detail?: string) {
    const name = triggerName(trigger);
    const target = trigger.kind === 'manual_update' ? ` to ${trigger.to} (${STATUS_NAMES[trigger.to]})` : '';
    super(
      `transaction in status ${from.status} (${STATUS_NAMES[from.status]}) cannot take "${name}"${target}${detail ? `: ${detail}` : ''}`,
      { code: ErrorCode.ILLEGAL_TRANSITION },
    );
    this.from = from;
    this.trigger = name;
  }
}

export type TransitionResult =
  /** The state changes; `statusChanged` says whether the integer moved (IPN + event). */
  | { kind: 'changed'; next: TxState; statusChanged: boolean }
  /** Already in the target state: an idempotent repeat, nothing to write. */
  | { kind: 'unchanged' };

/** State of a new transaction. */
export function initialState(trigger: CreationTrigger): TxState {
  if (trigger.kind === 'create') return { status: S.pending, subState: null };
  if (trigger.status !== S.initiated && trigger.status !== S.completed) {
    throw new ValidationError('a manual transaction starts as initiated (-1) or completed (1)', { field: 'status' });
  }
  return { status: trigger.status, subState: null };
}

const to = (status: TxStatus, subState: SubState = null): TxState => ({ status, subState });

/**
 * Provider outcomes by current status. A provider is the authority on money movement, but stale or
 * out-of-order reports must not undo a later fact:
 * - succeeded: money moved, so it wins over pending, initiated, failed (the buyer retried at the
 *   provider) and canceled (a capture raced our cancel); refunded/disputed are later facts.
 * - failed: only from pending/initiated; a failure never undoes a capture or a cancellation.
 * - cancelled: from pending, initiated and failed (the provider gave up on a failed attempt).
 * - pending: engages an initiated transaction; otherwise only a repeat.
 */
const OUTCOME_TARGET: Readonly<Record<ProviderOutcome, { target: TxStatus; from: readonly TxStatus[] }>> = {
  succeeded: { target: S.completed, from: [S.pending, S.initiated, S.failed, S.canceled] },
  failed: { target: S.failed, from: [S.pending, S.initiated] },
  cancelled: { target: S.canceled, from: [S.pending, S.initiated, S.failed] },
  pending: { target: S.pending, from: [S.initiated] },
};

/** Manual status changes allowed for transactions that no provider payment backs. */
const MANUAL_TARGETS: Readonly<Record<TxStatus, readonly TxStatus[]>> = {
  [S.canceled]: [],
  [S.initiated]: [S.pending, S.completed, S.failed, S.canceled],
  [S.pending]: [S.completed, S.failed, S.canceled],
  [S.completed]: [],
  [S.failed]: [S.completed, S.canceled],
  [S.refunded]: [],
  [S.disputed]: [],
};

function changed(from: TxState, next: TxState): TransitionResult {
  return { kind: 'changed', next, statusChanged: next.status !== from.status };
}

/**
 * Applies a trigger to a state.
 *
 * @returns the next state, or `unchanged` for an idempotent repeat.
 * @throws IllegalTransitionError when the rules forbid the move.
 */
export function transition(from: TxState, trigger: Trigger): TransitionResult {
  switch (trigger.kind) {
    case 'cancel':
      if (from.status === S.canceled) return { kind: 'unchanged' };
      if (from.status === S.pending) return changed(from, to(S.canceled));
      throw new IllegalTransitionError(from, trigger, 'only pending transactions can be canceled');
    case 'expire':
      if (from.status === S.canceled) return { kind: 'unchanged' };
      if (from.status === S.pending) return changed(from, to(S.canceled));
      throw new IllegalTransitionError(from, trigger, 'only pending transactions expire');
    case 'mark_pending':
      if (from.status !== S.pending)
        throw new IllegalTransitionError(from, trigger, 'only pending transactions can wait for the provider');
      if (from.subState === 'pending_provider') return { kind: 'unchanged' };
      return changed(from, to(S.pending, 'pending_provider'));
    case 'payment_start_failed':
      if (from.status !== S.pending) throw new IllegalTransitionError(from, trigger);
      return changed(from, to(S.failed));
    case 'provider_outcome': {
      const rule = OUTCOME_TARGET[trigger.outcome];
      if (from.status === rule.target) return { kind: 'unchanged' };
      if (!rule.from.includes(from.status))
        throw new IllegalTransitionError(from, trigger, 'stale or out-of-order report');
      return changed(from, to(rule.target));
    }
    case 'provider_refund':
      // A refund (partial or full, in any status) is recorded on the transaction and never moves
      // its status; "mark refunded" is the operator's manual update to 3.
      return { kind: 'unchanged' };
    case 'provider_dispute':
    case 'manual_dispute':
      return disputeTransition(from, trigger.status);
    case 'manual_update': {
      if (trigger.to === S.refunded) return markRefunded(from, trigger);
      if (trigger.providerBacked) {
        throw new IllegalTransitionError(
          from,
          trigger,
          'the status of a provider-backed transaction follows the provider',
        );
      }
      if (trigger.to === from.status) return { kind: 'unchanged' };
      if (!MANUAL_TARGETS[from.status].includes(trigger.to)) throw new IllegalTransitionError(from, trigger);
      return changed(from, to(trigger.to));
    }
  }
}

/**
 * "Mark refunded": a completed transaction moves to refunded (3) by the operator's decision. A
 * manual transaction may be marked at any time (the refund happened outside the platform); a
 * provider-backed one only once its recorded provider refunds cover the amount.
 */
function markRefunded(from: TxState, trigger: Extract<Trigger, { kind: 'manual_update' }>): TransitionResult {
  if (from.status === S.refunded) return { kind: 'unchanged' };
  if (from.status !== S.completed)
    throw new IllegalTransitionError(from, trigger, 'only completed transactions can be marked refunded');
  if (trigger.providerBacked && trigger.refundedInFull !== true) {
    throw new IllegalTransitionError(from, trigger, 'the recorded provider refunds do not cover the amount');
  }
  return changed(from, to(S.refunded));
}

/**
 * Dispute rules: a dispute proves the payment was taken, so an active (`open`, `under_review`) or
 * lost (`lost`, `accepted`) dispute puts any status into disputed (4) and keeps it there; `won`
 * restores a disputed transaction to completed (1) and changes nothing elsewhere.
 */
function disputeTransition(
  from: TxState,
  status: 'open' | 'under_review' | 'won' | 'lost' | 'accepted',
): TransitionResult {
  if (status === 'won') return from.status === S.disputed ? changed(from, to(S.completed)) : { kind: 'unchanged' };
  if (from.status === S.disputed) return { kind: 'unchanged' };
  return changed(from, to(S.disputed));
}
