import { describe, expect, it } from 'vitest';
import type { PaymentOutcome } from './payment';
import {
  claimsOutcome,
  firstReconcileAt,
  isReconcileDue,
  nextReconcileAt,
  outcomeClaimId,
  reconciledOutcome,
} from './reconcile';

const opts = { minPendingAgeMs: 60_000, intervalMs: 10_000, maxAgeMs: 3_600_000 };
const created = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(created.getTime() + ms);

describe('reconciler selection', () => {
  it('first looks at a payment the minimum pending age after it started', () => {
    expect(firstReconcileAt(created, opts)).toBe('2026-01-01T00:01:00.000Z');
  });

  it('doubles the pause with each look, capped at 16 intervals, and stops after the maximum age', () => {
    const now = at(60_000);
    expect([1, 2, 3, 4, 5, 6].map((n) => Date.parse(nextReconcileAt(created, now, n, opts)!) - now.getTime())).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 160_000,
    ]);
    expect(nextReconcileAt(created, at(3_595_000), 1, opts)).toBeNull();
  });

  it('is due only when unsettled and its look time has come', () => {
    const now = at(60_000);
    expect(isReconcileDue({ status: 'pending', reconcileAt: now.toISOString() }, now)).toBe(true);
    expect(isReconcileDue({ status: 'failed', reconcileAt: at(1).toISOString() }, at(2))).toBe(true);
    expect(isReconcileDue({ status: 'pending', reconcileAt: at(60_001).toISOString() }, now)).toBe(false);
    expect(isReconcileDue({ status: 'succeeded', reconcileAt: at(0).toISOString() }, now)).toBe(false);
    expect(isReconcileDue({ status: 'cancelled', reconcileAt: at(0).toISOString() }, now)).toBe(false);
    expect(isReconcileDue({ status: 'pending', reconcileAt: null }, now)).toBe(false);
    expect(isReconcileDue({ status: 'pending' }, now)).toBe(false);
  });

  it('applies only what the provider settled and we have not stored; pending is never guessed', () => {
    expect(reconciledOutcome('pending', 'succeeded')).toBe('succeeded');
    expect(reconciledOutcome('pending', 'cancelled')).toBe('cancelled');
    expect(reconciledOutcome('pending', 'failed')).toBe('failed');
    expect(reconciledOutcome('failed', 'succeeded')).toBe('succeeded');
    expect(reconciledOutcome('pending', 'pending')).toBeNull();
    expect(reconciledOutcome('failed', 'pending')).toBeNull();
    expect(reconciledOutcome('failed', 'failed')).toBeNull();
    expect(reconciledOutcome('succeeded', 'cancelled')).toBeNull();
    expect(reconciledOutcome('cancelled', 'succeeded')).toBeNull();
  });

  it('keys the outcome claim by payment and outcome; only final outcomes always take it', () => {
    expect(outcomeClaimId('pi_1', 'succeeded')).toBe('outcome:pi_1:succeeded');
    const outcomes: PaymentOutcome[] = ['succeeded', 'cancelled', 'failed', 'pending'];
    expect(outcomes.map((o) => claimsOutcome(o))).toEqual([true, true, false, false]);
  });
});
