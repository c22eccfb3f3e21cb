import { describe, expect, it } from 'vitest';
import { ConflictError } from '@paymesh/core';
import { SCHEDULE_STATUSES, scheduleTransition, type ScheduleStatus, type ScheduleTrigger } from './schedule-state';

describe('scheduleTransition', () => {
  it.each<[ScheduleStatus, ScheduleTrigger, ScheduleStatus | 'unchanged']>([
    ['active', 'pause', 'paused'],
    ['paused', 'pause', 'unchanged'],
    ['paused', 'resume', 'active'],
    ['active', 'resume', 'unchanged'],
    ['active', 'cancel', 'cancel_requested'],
    ['paused', 'cancel', 'cancel_requested'],
    ['cancel_requested', 'cancel', 'unchanged'],
    ['cancelled', 'cancel', 'unchanged'],
    ['active', 'cancel_now', 'cancelled'],
    ['cancel_requested', 'finalize_cancel', 'cancelled'],
    ['cancelled', 'finalize_cancel', 'unchanged'],
    ['active', 'complete', 'completed'],
  ])('%s --%s--> %s', (from, trigger, to) => {
    const r = scheduleTransition(from, trigger);
    expect(r.kind === 'unchanged' ? 'unchanged' : r.next).toBe(to);
  });

  it.each<[ScheduleStatus, ScheduleTrigger]>([
    ['cancel_requested', 'pause'],
    ['cancelled', 'pause'],
    ['cancelled', 'resume'],
    ['cancel_requested', 'resume'],
    ['completed', 'resume'],
    ['completed', 'cancel'],
    ['active', 'finalize_cancel'],
    ['paused', 'finalize_cancel'],
  ])('%s refuses %s with 409', (from, trigger) => {
    expect(() => scheduleTransition(from, trigger)).toThrow(ConflictError);
  });

  it('every state answers every trigger (changed, unchanged or refused)', () => {
    const triggers: ScheduleTrigger[] = ['pause', 'resume', 'cancel', 'cancel_now', 'finalize_cancel', 'complete'];
    for (const s of SCHEDULE_STATUSES)
      for (const t of triggers) {
        try {
          const r = scheduleTransition(s, t);
          if (r.kind === 'changed') expect(SCHEDULE_STATUSES).toContain(r.next);
        } catch (err) {
          expect(err).toBeInstanceOf(ConflictError);
        }
      }
  });
});
