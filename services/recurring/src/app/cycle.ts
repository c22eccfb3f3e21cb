import { ConflictError, ErrorCode, systemClock } from '@paymesh/core';
import { isVersionConflict, type StoredDoc } from '@paymesh/store';
import type { InvoiceRecord } from '@paymesh/contracts';
import { addDays } from '../domain/schedule-dates';
import { scheduleTransition } from '../domain/schedule-state';
import { CYCLE_CLAIMS } from '../store/collections';
import type { OrgKey } from './billing-port';
import type { RecurringDeps } from './deps';
import { dateOfCycle, dueFromOf, type ScheduleDoc } from './schedule-doc';
import { invoiceBody, schedules } from './schedules';

/**
 * The claim of one (schedule, cycle): a unique key in the recurring store. Whoever holds an
 * unexpired lease generates the cycle's invoice; a claim left by a crashed run is taken over once
 * its lease ends. Billing's idempotency key makes the invoice creation itself exactly-once too.
 */
export interface ClaimDoc extends StoredDoc {
  /** `<scheduleId>:<cycle date>`: a cycle is its date in the schedule's plan. */
  claimKey: string;
  scheduleId: string;
  organizationId: string;
  mode: 'live' | 'test';
  cycle: number;
  cycleDate: string;
  state: 'claimed' | 'done';
  owner: string;
  /** Lease end (wall clock, ISO). */
  leaseUntil: string;
  invoiceId: string | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export type CycleOutcome =
  | {
      kind: 'generated';
      invoice: InvoiceRecord;
      created: boolean;
      cycle: number;
      cycleDate: string;
      schedule: ScheduleDoc;
    }
  /** Another run holds the cycle's unexpired claim. */
  | { kind: 'held'; cycle: number }
  /** The schedule moved on meanwhile (another run finished the cycle). */
  | { kind: 'stale' };

/** Test hook: a run that stops (forever, until the process is killed) at this step. */
export type HoldPoint = 'claim' | 'invoice';

export const claimKeyOf = (scheduleId: string, date: string) => `${scheduleId}:${date}`;
export const invoiceKeyOf = (scheduleId: string, date: string) => `recurring:${scheduleId}:${date}`;

const claims = (deps: RecurringDeps) => deps.store.collection<ClaimDoc>(CYCLE_CLAIMS);

/** Claims (schedule, cycle) for `owner`: a new claim, or an expired one taken over by compare-and-set. */
async function claim(
  deps: RecurringDeps,
  s: ScheduleDoc,
  cycle: number,
  owner: string,
): Promise<ClaimDoc | 'held' | 'done'> {
  const date = dateOfCycle(s, cycle);
  const wallNow = systemClock.now();
  const leaseUntil = new Date(wallNow.getTime() + deps.settings.claimLeaseMs).toISOString();
  const coll = claims(deps);
  try {
    return await coll.insert({
      claimKey: claimKeyOf(s.id, date),
      scheduleId: s.id,
      organizationId: s.organizationId,
      mode: s.mode,
      cycle,
      cycleDate: date,
      state: 'claimed',
      owner,
      leaseUntil,
      invoiceId: null,
      attempts: 1,
      lastError: null,
      createdAt: wallNow.toISOString(),
      updatedAt: wallNow.toISOString(),
    });
  } catch (err) {
    if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
  }
  const existing = await coll.findOne({ claimKey: claimKeyOf(s.id, date) });
  if (!existing) return 'held';
  if (existing.state === 'done') return 'done';
  if (existing.leaseUntil > wallNow.toISOString()) return 'held';
  try {
    deps.logger.warn(
      { scheduleId: s.id, cycleDate: date, previousOwner: existing.owner },
      'recurring: resuming a cycle claim whose lease ended',
    );
    return await coll.replace({
      ...existing,
      owner,
      leaseUntil,
      attempts: existing.attempts + 1,
      updatedAt: wallNow.toISOString(),
    });
  } catch (err) {
    if (isVersionConflict(err)) return 'held';
    throw err;
  }
}

/** Moves the schedule past `cycle` (compare-and-set: only when it still stands at that cycle). */
async function advance(
  deps: RecurringDeps,
  s: ScheduleDoc,
  cycle: number,
  invoiceId: string | null,
): Promise<ScheduleDoc | null> {
  const now = deps.clock.now().toISOString();
  let moved = false;
  const stored = await schedules(deps).update(
    s.id,
    (cur) => {
      if (cur.nextCycle !== cycle || cur.startDate !== s.startDate) return null;
      moved = true;
      const next: ScheduleDoc = {
        ...cur,
        // A cancellation requested while this cycle was being invoiced takes effect from the next one.
        ...(cur.status === 'cancel_requested' && cur.effectiveFromCycle === cycle
          ? { effectiveFromCycle: cycle + 1 }
          : {}),
        nextCycle: cycle + 1,
        nextRunDate: dateOfCycle(cur, cycle + 1),
        invoicesGenerated: cur.invoicesGenerated + (invoiceId ? 1 : 0),
        lastInvoiceId: invoiceId ?? cur.lastInvoiceId,
        updatedAt: now,
      };
      return { ...next, dueFrom: dueFromOf(next) };
    },
    5,
  );
  return moved ? stored : null;
}

/**
 * Generates cycle `cycle` of a schedule exactly once: claim, create the invoice (idempotent in
 * billing), issue and send when the schedule says so, mark the claim done, advance the schedule.
 * Safe to repeat after a crash between any two steps. Never touches provider funds.
 */
export async function generateCycle(
  deps: RecurringDeps,
  held: ScheduleDoc,
  cycle: number,
  owner: string,
  hold?: HoldPoint,
): Promise<CycleOutcome> {
  let s = held;
  const key: OrgKey = { organizationId: s.organizationId, mode: s.mode };
  const got = await claim(deps, s, cycle, owner);
  const date = dateOfCycle(s, cycle);
  if (got === 'held') return { kind: 'held', cycle };
  // The schedule as it is now: paused, cancelled or re-planned since it was read means no invoice.
  const fresh = await schedules(deps).get(s.id);
  const moved = !fresh || fresh.nextCycle !== cycle || fresh.startDate !== s.startDate;
  if (moved || (got !== 'done' && fresh.status !== 'active')) {
    if (typeof got === 'object') await claims(deps).delete(got.id);
    return { kind: 'stale' };
  }
  if (hold === 'claim') await holdForever(deps, s, date, 'claim');
  s = fresh;
  const body = cycleInvoiceBody(s, cycle);
  // Done claims (or any repeat) still go through billing's idempotency key: the same invoice comes back.
  let invoice = await deps.billing.createInvoice(key, body, invoiceKeyOf(s.id, date), `recurring:${s.id}`);
  const created = typeof got === 'object' && invoice.createdAt >= got.updatedAt;
  if (hold === 'invoice') await holdForever(deps, s, date, 'invoice');
  if (s.autoFinalizeInvoices && invoice.status === 'draft') invoice = await deps.billing.issueInvoice(key, invoice.id);
  if (s.autoFinalizeInvoices && s.autoSendInvoices && invoice.status !== 'draft' && !invoice.emails?.length) {
    await deps.billing.sendInvoice(key, invoice.id);
  }
  if (typeof got === 'object') {
    await claims(deps).update(
      got.id,
      (c) => ({
        ...c,
        state: 'done',
        invoiceId: invoice.id,
        lastError: null,
        updatedAt: systemClock.now().toISOString(),
      }),
      3,
    );
  }
  const advanced = await advance(deps, s, cycle, invoice.id);
  const schedule = advanced ?? (await schedules(deps).get(s.id)) ?? s;
  return { kind: 'generated', invoice, created, cycle, cycleDate: date, schedule };
}

/** The invoice payload of a cycle: the template, with the cycle's service period (up to the day before the next cycle). */
export function cycleInvoiceBody(s: ScheduleDoc, cycle: number) {
  const date = dateOfCycle(s, cycle);
  return { ...invoiceBody(s.template), servicePeriod: { start: date, end: addDays(dateOfCycle(s, cycle + 1), -1) } };
}

/** Records a failed attempt on this run's claim and ends its lease, so the next run retries the cycle at once. */
export async function recordClaimError(
  deps: RecurringDeps,
  s: ScheduleDoc,
  cycle: number,
  owner: string,
  message: string,
): Promise<void> {
  const c = await claims(deps).findOne({ claimKey: claimKeyOf(s.id, dateOfCycle(s, cycle)) });
  // Only this run's own claim: one another run took over is that run's to finish.
  if (!c || c.state === 'done' || c.owner !== owner) return;
  await claims(deps)
    .update(
      c.id,
      (cur) => ({ ...cur, lastError: message.slice(0, 500), leaseUntil: systemClock.now().toISOString() }),
      3,
    )
    .catch(() => undefined);
}

/** Finalizes a due scheduled cancellation (compare-and-set on the state). */
export async function finalizeCancellation(deps: RecurringDeps, s: ScheduleDoc): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  let changed = false;
  await schedules(deps).update(
    s.id,
    (cur) => {
      const t = scheduleTransition(cur.status, 'finalize_cancel');
      if (t.kind === 'unchanged') return null;
      // Never early: the effective day must still have begun (a PUT may have moved it meanwhile).
      if (cur.dueFrom === null || cur.dueFrom > now) return null;
      changed = true;
      const next: ScheduleDoc = { ...cur, status: t.next, nextRunDate: null, cancelledAt: now, updatedAt: now };
      return { ...next, dueFrom: null };
    },
    5,
  );
  if (changed)
    deps.logger.info(
      { scheduleId: s.id, organizationId: s.organizationId },
      'recurring schedule cancelled (cancellation effective)',
    );
  return changed;
}

async function holdForever(deps: RecurringDeps, s: ScheduleDoc, date: string, at: HoldPoint): Promise<never> {
  deps.logger.warn({ scheduleId: s.id, cycleDate: date, holdAfter: at }, 'recurring run holding (test hook)');
  return new Promise<never>(() => undefined);
}
