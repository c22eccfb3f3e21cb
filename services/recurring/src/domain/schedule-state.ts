import { ConflictError, ErrorCode } from '@paymesh/core';

/**
 * The recurring schedule state machine, as data. Pure: no I/O, no clock.
 *
 * active --pause--> paused --resume--> active
 * active|paused --cancel (a next run exists)--> cancel_requested --finalize (cycle due)--> cancelled
 * active|paused --cancel (no next run)--> cancelled
 * active --last cycle generated--> completed (schedules with an end)
 */
export const SCHEDULE_STATUSES = ['active', 'paused', 'cancel_requested', 'cancelled', 'completed'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export type ScheduleTrigger = 'pause' | 'resume' | 'cancel' | 'cancel_now' | 'finalize_cancel' | 'complete';

interface Rule {
  /** States the trigger moves from, and where to. */
  from: Partial<Record<ScheduleStatus, ScheduleStatus>>;
  /** States in which the trigger is an idempotent repeat (nothing changes). */
  repeatIn: readonly ScheduleStatus[];
}

export const SCHEDULE_RULES: Readonly<Record<ScheduleTrigger, Rule>> = {
  pause: { from: { active: 'paused' }, repeatIn: ['paused'] },
  resume: { from: { paused: 'active' }, repeatIn: ['active'] },
  cancel: {
    from: { active: 'cancel_requested', paused: 'cancel_requested' },
    repeatIn: ['cancel_requested', 'cancelled'],
  },
  cancel_now: { from: { active: 'cancelled', paused: 'cancelled' }, repeatIn: ['cancel_requested', 'cancelled'] },
  finalize_cancel: { from: { cancel_requested: 'cancelled' }, repeatIn: ['cancelled'] },
  complete: { from: { active: 'completed' }, repeatIn: ['completed'] },
};

/** Portal-visible states: the buyer sees running schedules and scheduled cancellations. */
export const PORTAL_VISIBLE: readonly ScheduleStatus[] = ['active', 'cancel_requested'];

/** States in which the processor generates invoices (a scheduled cancellation takes effect at its cycle, which is never billed). */
export const GENERATING: readonly ScheduleStatus[] = ['active'];

export type ScheduleTransition = { kind: 'changed'; next: ScheduleStatus } | { kind: 'unchanged' };

/** Applies a trigger; throws 409 ILLEGAL_TRANSITION when the rules forbid it. */
export function scheduleTransition(from: ScheduleStatus, trigger: ScheduleTrigger): ScheduleTransition {
  const rule = SCHEDULE_RULES[trigger];
  if (rule.repeatIn.includes(from)) return { kind: 'unchanged' };
  const next = rule.from[from];
  if (!next) {
    throw new ConflictError(`recurring schedule in status ${from} cannot take "${trigger}"`, {
      code: ErrorCode.ILLEGAL_TRANSITION,
    });
  }
  return { kind: 'changed', next };
}
