import { describe, expect, it } from 'vitest';
import {
  IllegalTransitionError,
  initialState,
  transition,
  triggerName,
  TX_STATUSES,
  type Trigger,
  type TxState,
  type TxStatus,
} from './transaction-state';

/** Every reachable state: each status, and 0 also with the pending_provider sub-state. */
const STATES: Record<string, TxState> = {
  '-2': { status: -2, subState: null },
  '-1': { status: -1, subState: null },
  '0': { status: 0, subState: null },
  '0/pp': { status: 0, subState: 'pending_provider' },
  '1': { status: 1, subState: null },
  '2': { status: 2, subState: null },
  '3': { status: 3, subState: null },
  '4': { status: 4, subState: null },
};
// Explicit order: Object.keys would list integer-like keys first.
const STATE_KEYS = ['-2', '-1', '0', '0/pp', '1', '2', '3', '4'];

/**
 * Expected outcome per trigger and state, written out by hand: `x` illegal, `=` idempotent repeat,
 * otherwise the next state key. Order of the cells follows STATE_KEYS:
 *                          -2    -1    0       0/pp    1    2    3    4
 */
const TABLE: Record<string, string[]> = {
  cancel: /*            */ ['=', 'x', '-2', '-2', 'x', 'x', 'x', 'x'],
  expire: /*            */ ['=', 'x', '-2', '-2', 'x', 'x', 'x', 'x'],
  mark_pending: /*      */ ['x', 'x', '0/pp', '=', 'x', 'x', 'x', 'x'],
  payment_start_failed: ['x', 'x', '2', '2', 'x', 'x', 'x', 'x'],
  provider_succeeded: /**/ ['1', '1', '1', '1', '=', '1', 'x', 'x'],
  provider_failed: /*   */ ['x', '2', '2', '2', 'x', '=', 'x', 'x'],
  provider_cancelled: /**/ ['=', '-2', '-2', '-2', 'x', '-2', 'x', 'x'],
  provider_pending: /*  */ ['x', '0', '=', '=', 'x', 'x', 'x', 'x'],
  // refunds are only recorded: they never change the status by themselves
  'refund/full': /*     */ ['=', '=', '=', '=', '=', '=', '=', '='],
  'refund/partial': /*  */ ['=', '=', '=', '=', '=', '=', '=', '='],
  // disputes (chargebacks) by the state the provider reports
  'dispute/open': /*    */ ['4', '4', '4', '4', '4', '4', '4', '='],
  'dispute/under_review': ['4', '4', '4', '4', '4', '4', '4', '='],
  'dispute/won': /*     */ ['=', '=', '=', '=', '=', '=', '=', '1'],
  'dispute/lost': /*    */ ['4', '4', '4', '4', '4', '4', '4', '='],
  'dispute/accepted': /**/ ['4', '4', '4', '4', '4', '4', '4', '='],
  // an operator's decision on a chargeback follows the same rules
  'manual_dispute/open': ['4', '4', '4', '4', '4', '4', '4', '='],
  'manual_dispute/won': ['=', '=', '=', '=', '=', '=', '=', '1'],
  'manual_dispute/lost': ['4', '4', '4', '4', '4', '4', '4', '='],
  // manual updates of transactions without a provider payment, by target status
  'manual->-2': /*      */ ['=', '-2', '-2', '-2', 'x', '-2', 'x', 'x'],
  'manual->-1': /*      */ ['x', '=', 'x', 'x', 'x', 'x', 'x', 'x'],
  'manual->0': /*       */ ['x', '0', '=', '=', 'x', 'x', 'x', 'x'],
  'manual->1': /*       */ ['x', '1', '1', '1', '=', '1', 'x', 'x'],
  'manual->2': /*       */ ['x', '2', '2', '2', 'x', '=', 'x', 'x'],
  // "mark refunded": a completed manual transaction may be marked refunded
  'manual->3': /*       */ ['x', 'x', 'x', 'x', '3', 'x', '=', 'x'],
  'manual->4': /*       */ ['x', 'x', 'x', 'x', 'x', 'x', 'x', '='],
};

function triggerFor(key: string, providerBacked = false): Trigger {
  if (key.startsWith('manual->'))
    return { kind: 'manual_update', to: Number(key.slice(8)) as TxStatus, providerBacked };
  if (key.startsWith('refund/')) return { kind: 'provider_refund', full: key === 'refund/full' };
  if (key.startsWith('manual_dispute/'))
    return { kind: 'manual_dispute', status: key.slice(15) as 'open' | 'won' | 'lost' };
  if (key.startsWith('dispute/'))
    return { kind: 'provider_dispute', status: key.slice(8) as 'open' | 'under_review' | 'won' | 'lost' | 'accepted' };
  if (key.startsWith('provider_')) {
    return { kind: 'provider_outcome', outcome: key.slice(9) as 'succeeded' | 'failed' | 'cancelled' | 'pending' };
  }
  return { kind: key as 'cancel' | 'expire' | 'mark_pending' | 'payment_start_failed' };
}

describe('transaction state machine', () => {
  it('covers every trigger kind and target status in the table', () => {
    for (const s of TX_STATUSES) expect(TABLE[`manual->${s}`]).toBeDefined();
    for (const row of Object.values(TABLE)) expect(row).toHaveLength(STATE_KEYS.length);
  });

  for (const [trigger, row] of Object.entries(TABLE)) {
    STATE_KEYS.forEach((stateKey, i) => {
      const expected = row[i]!;
      it(`${trigger} from ${stateKey} -> ${expected}`, () => {
        const from = STATES[stateKey]!;
        const t = triggerFor(trigger);
        if (expected === 'x') {
          expect(() => transition(from, t)).toThrow(IllegalTransitionError);
          return;
        }
        const res = transition(from, t);
        if (expected === '=') {
          expect(res).toEqual({ kind: 'unchanged' });
          return;
        }
        const next = STATES[expected]!;
        expect(res).toEqual({ kind: 'changed', next, statusChanged: next.status !== from.status });
      });
    });
  }

  it('never lets an operator change the status of a provider-backed transaction (except mark refunded)', () => {
    for (const stateKey of STATE_KEYS) {
      for (const target of TX_STATUSES) {
        if (target === 3) continue;
        expect(() => transition(STATES[stateKey]!, triggerFor(`manual->${target}`, true))).toThrow(
          IllegalTransitionError,
        );
      }
    }
  });

  it('marks a provider-backed completed transaction refunded only when its recorded refunds cover the amount', () => {
    const mark = (refundedInFull: boolean): Trigger => ({
      kind: 'manual_update',
      to: 3,
      providerBacked: true,
      refundedInFull,
    });
    expect(transition(STATES['1']!, mark(true))).toEqual({
      kind: 'changed',
      next: { status: 3, subState: null },
      statusChanged: true,
    });
    expect(() => transition(STATES['1']!, mark(false))).toThrow(/recorded provider refunds do not cover the amount/);
    expect(transition(STATES['3']!, mark(true))).toEqual({ kind: 'unchanged' });
    for (const stateKey of ['-2', '-1', '0', '0/pp', '2', '4']) {
      expect(() => transition(STATES[stateKey]!, mark(true))).toThrow(IllegalTransitionError);
    }
  });

  it('marks a sub-state-only change as not changing the integer status (no IPN)', () => {
    const res = transition(STATES['0']!, { kind: 'mark_pending' });
    expect(res).toEqual({ kind: 'changed', next: { status: 0, subState: 'pending_provider' }, statusChanged: false });
  });

  it('clears the sub-state when the status leaves pending', () => {
    const res = transition(STATES['0/pp']!, { kind: 'provider_outcome', outcome: 'succeeded' });
    expect(res).toEqual({ kind: 'changed', next: { status: 1, subState: null }, statusChanged: true });
  });

  it('keeps the sub-state on a repeated pending report', () => {
    expect(transition(STATES['0/pp']!, { kind: 'provider_outcome', outcome: 'pending' })).toEqual({
      kind: 'unchanged',
    });
  });

  it('rejects with a 409 ILLEGAL_TRANSITION naming the state and trigger', () => {
    try {
      transition(STATES['1']!, { kind: 'cancel' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(IllegalTransitionError);
      const e = err as IllegalTransitionError;
      expect(e.httpStatus).toBe(409);
      expect(e.code).toBe('ILLEGAL_TRANSITION');
      expect(e.message).toContain('status 1 (completed)');
      expect(e.message).toContain('"cancel"');
      expect(e.trigger).toBe('cancel');
    }
  });

  it('starts buyer transactions pending and manual ones initiated or completed only', () => {
    expect(initialState({ kind: 'create' })).toEqual({ status: 0, subState: null });
    expect(initialState({ kind: 'create_manual', status: -1 })).toEqual({ status: -1, subState: null });
    expect(initialState({ kind: 'create_manual', status: 1 })).toEqual({ status: 1, subState: null });
    expect(() => initialState({ kind: 'create_manual', status: 0 as -1 })).toThrow(
      /initiated \(-1\) or completed \(1\)/,
    );
  });

  it('names triggers for the status history', () => {
    expect(triggerName({ kind: 'provider_outcome', outcome: 'succeeded' })).toBe('provider_succeeded');
    expect(triggerName({ kind: 'create' })).toBe('create');
    expect(triggerName({ kind: 'provider_refund', full: true })).toBe('provider_refund');
    expect(triggerName({ kind: 'provider_dispute', status: 'lost' })).toBe('provider_dispute_lost');
    expect(triggerName({ kind: 'manual_update', to: 1, providerBacked: false })).toBe('manual_update');
  });
});
