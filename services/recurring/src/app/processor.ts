import { randomBytes } from 'node:crypto';
import { ForbiddenError, systemClock } from '@paymesh/core';
import type { RecurringProcessBody, RecurringProcessResult } from '@paymesh/contracts';
import { PROCESSOR_RUNS } from '../store/collections';
import type { StoredDoc } from '@paymesh/store';
import { CYCLE_CLAIMS } from '../store/collections';
import type { RecurringDeps } from './deps';
import { finalizeCancellation, generateCycle, recordClaimError, type HoldPoint } from './cycle';
import type { ScheduleDoc } from './schedule-doc';
import { schedules } from './schedules';
import { SCHEDULE_STATUSES } from '../domain/schedule-state';

interface RunDoc extends StoredDoc, RecurringProcessResult {
  startedAt: string;
  finishedAt: string | null;
  /** The run's "now" (differs from startedAt only with the test clock). */
  asOf: string;
}

/** Cycles one schedule may catch up in one run (a processor that was down for a while). */
const MAX_CYCLES_PER_SCHEDULE = 24;
const DEFAULT_LIMIT = 500;

/**
 * `POST /system/recurring/process`: every due cycle of active schedules across organizations gets
 * its invoice (exactly once per cycle), and due scheduled cancellations become `cancelled`.
 */
export async function processDue(deps: RecurringDeps, body: RecurringProcessBody): Promise<RecurringProcessResult> {
  const hold: HoldPoint | undefined = body.holdAfter;
  if ((body.now !== undefined || hold !== undefined) && !deps.settings.testHooks) {
    throw new ForbiddenError('now and holdAfter are test hooks; this deployment does not accept them');
  }
  const now = body.now ? new Date(body.now) : deps.clock.now();
  const nowIso = now.toISOString();
  const owner = `run:${randomBytes(6).toString('hex')}`;
  const result: RecurringProcessResult = {
    processed: 0,
    completed: 0,
    failed: 0,
    skipped: 0,
    cancellationsFinalized: 0,
  };
  const runs = deps.store.collection<RunDoc>(PROCESSOR_RUNS);
  const run = await runs.insert({
    ...result,
    startedAt: systemClock.now().toISOString(),
    finishedAt: null,
    asOf: nowIso,
  });
  const limit = body.limit ?? DEFAULT_LIMIT;
  const clockedDeps: RecurringDeps = { ...deps, clock: { now: () => now } };

  const due = await schedules(deps).find(
    { status: { $in: ['active', 'cancel_requested'] }, dueFrom: { $lte: nowIso } },
    { sort: { dueFrom: 1 }, limit },
  );
  for (const found of due.items) {
    if (found.status === 'cancel_requested') {
      // Never early: dueFrom is the start of the effective cycle's day in the schedule's zone.
      if (await finalizeCancellation(clockedDeps, found)) result.cancellationsFinalized += 1;
      continue;
    }
    let s: ScheduleDoc = found;
    for (let i = 0; i < MAX_CYCLES_PER_SCHEDULE; i += 1) {
      if (s.status !== 'active' || s.dueFrom === null || s.dueFrom > nowIso) break;
      result.processed += 1;
      const cycle: number = s.nextCycle;
      const current: ScheduleDoc = s;
      try {
        const out = await generateCycle(clockedDeps, current, cycle, owner, hold);
        if (out.kind !== 'generated') {
          result.skipped += 1;
          break;
        }
        result.completed += 1;
        if (out.schedule.nextCycle <= cycle) break;
        s = out.schedule;
      } catch (err) {
        result.failed += 1;
        const message = err instanceof Error ? err.message : String(err);
        deps.logger.error(
          { scheduleId: current.id, cycle, err: message },
          'recurring: generating a cycle failed; the next run retries it',
        );
        await recordClaimError(deps, current, cycle, owner, message);
        break;
      }
    }
  }
  await runs.update(run.id, (cur) => {
    return { ...cur, ...result, finishedAt: systemClock.now().toISOString() };
  });
  deps.logger.info({ ...result, asOf: nowIso }, 'recurring processor run finished');
  return result;
}

/** `GET /system/recurring/status`: due work now, open claims, schedules by state, the last runs. */
export async function processorStatus(deps: RecurringDeps) {
  const now = deps.clock.now().toISOString();
  const coll = schedules(deps);
  const [invoices, cancellations, openClaims] = await Promise.all([
    coll.count({ status: 'active', dueFrom: { $lte: now } }),
    coll.count({ status: 'cancel_requested', dueFrom: { $lte: now } }),
    deps.store.collection(CYCLE_CLAIMS).count({ state: 'claimed' }),
  ]);
  const byStatus: Record<string, number> = {};
  for (const st of SCHEDULE_STATUSES) byStatus[st] = await coll.count({ status: st });
  const last = await deps.store.collection<RunDoc>(PROCESSOR_RUNS).find({}, { sort: { startedAt: -1 }, limit: 10 });
  return {
    now,
    due: { invoices, cancellations },
    openClaims,
    schedules: byStatus,
    lastRuns: last.items.map((r) => ({
      id: r.id,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      processed: r.processed,
      completed: r.completed,
      failed: r.failed,
      skipped: r.skipped,
      cancellationsFinalized: r.cancellationsFinalized,
    })),
  };
}
