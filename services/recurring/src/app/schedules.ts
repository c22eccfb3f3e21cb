import { ConflictError, DomainError, isObjectId, NotFoundError, ofTenant, ValidationError } from '@paymesh/core';
import type {
  RecurringCancel,
  RecurringListQuery,
  RecurringScheduleCreate,
  RecurringScheduleRecord,
  RecurringScheduleUpdate,
  RecurringInvoiceTemplate,
} from '@paymesh/contracts';
import type { Filter } from '@paymesh/store';
import { addDays, dayIn, firstCycleAfter, isCalendarDate, isTimeZone } from '../domain/schedule-dates';
import { scheduleTransition, type ScheduleTrigger } from '../domain/schedule-state';
import { SCHEDULES } from '../store/collections';
import type { OrgKey } from './billing-port';
import type { RecurringDeps } from './deps';
import {
  dateOfCycle,
  dueFromOf,
  intervalOf,
  scheduleView,
  type ScheduleDoc,
  type ScheduleTemplate,
} from './schedule-doc';

export const schedules = (deps: RecurringDeps) => deps.store.collection<ScheduleDoc>(SCHEDULES);

/** Normalised buyer e-mail for portal ownership. */
export const normaliseEmail = (email: string | null | undefined): string | null => {
  const e = email?.trim().toLowerCase();
  return e ? e : null;
};

/** A schedule of the tenant; another organization's or mode's is a 404. */
export async function loadSchedule(deps: RecurringDeps, key: OrgKey, id: string): Promise<ScheduleDoc> {
  const doc = isObjectId(id) ? await schedules(deps).get(id) : null;
  if (!ofTenant(doc, key)) throw new NotFoundError(`recurring schedule ${id} not found`);
  return doc;
}

function templateOf(t: RecurringInvoiceTemplate): ScheduleTemplate {
  return {
    siteId: t.siteId,
    clientId: t.clientId,
    currency: t.currency,
    items: t.items,
    paymentTermsDays: t.paymentTermsDays ?? null,
    notes: t.notes ?? null,
  };
}

function checkDates(startDate: string, timezone: string): void {
  if (!isCalendarDate(startDate))
    throw new ValidationError('startDate: must be a calendar date YYYY-MM-DD', { field: 'startDate' });
  if (!isTimeZone(timezone))
    throw new ValidationError('timezone: must be an IANA time zone (e.g. Europe/Berlin)', { field: 'timezone' });
}

/**
 * Checks the template against billing (client and site exist, the engine can tax it on the first
 * date it will bill: `date`, or today when that has passed) and reads the buyer's e-mail.
 */
async function checkTemplate(
  deps: RecurringDeps,
  key: OrgKey,
  t: ScheduleTemplate,
  firstDate: string,
  timezone: string,
): Promise<string | null> {
  const today = dayIn(deps.clock.now(), timezone);
  const date = firstDate > today ? firstDate : today;
  let email: string | null;
  try {
    email = await deps.billing.clientEmail(key, t.clientId);
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new NotFoundError(`template.clientId: client ${t.clientId} not found`, { field: 'template.clientId' });
    throw err;
  }
  try {
    await deps.billing.previewTax(key, { ...invoiceBody(t), issueDate: date });
  } catch (err) {
    // Billing names its fields (siteId, items.0.taxRate); here they sit under `template`.
    if (err instanceof DomainError && (err.kind === 'not_found' || err.kind === 'validation')) {
      const field = err.field ? `template.${err.field}` : undefined;
      const Kind = err.kind === 'not_found' ? NotFoundError : ValidationError;
      throw new Kind(`template.${err.message}`, field ? { field } : {});
    }
    throw err;
  }
  return normaliseEmail(email);
}

/** The draft payload of a cycle's invoice (billing's `invoiceCreate`). */
export function invoiceBody(t: ScheduleTemplate) {
  return {
    siteId: t.siteId,
    clientId: t.clientId,
    currency: t.currency,
    items: t.items,
    ...(t.paymentTermsDays !== null ? { paymentTermsDays: t.paymentTermsDays } : {}),
    ...(t.notes !== null ? { notes: t.notes } : {}),
  };
}

/** `POST /invoices/recurring`. */
export async function createSchedule(
  deps: RecurringDeps,
  key: OrgKey,
  input: RecurringScheduleCreate,
  actor: string | null,
): Promise<RecurringScheduleRecord> {
  const timezone = input.timezone ?? (await deps.billing.timeZone(key));
  checkDates(input.startDate, timezone);
  const template = templateOf(input.template);
  const buyerEmail = await checkTemplate(deps, key, template, input.startDate, timezone);
  const now = deps.clock.now().toISOString();
  const base = {
    organizationId: key.organizationId,
    mode: key.mode,
    name: input.name ?? (template.items[0]?.description ?? 'Subscription').slice(0, 200),
    status: 'active' as const,
    startDate: input.startDate,
    interval: input.interval,
    intervalCount: input.intervalCount,
    timezone,
    template,
    autoFinalizeInvoices: input.autoFinalizeInvoices,
    autoSendInvoices: input.autoSendInvoices,
    nextCycle: 0,
    nextRunDate: input.startDate,
    invoicesGenerated: 0,
    lastInvoiceId: null,
    buyerEmail,
    effectiveFromCycle: null,
    cancellationRequestedAt: null,
    cancelledBy: null,
    cancellationReason: null,
    cancelledAt: null,
    pausedAt: null,
    createdBy: actor,
    createdAt: now,
    updatedAt: now,
  };
  const doc = await schedules(deps).insert({ ...base, dueFrom: dueFromOf(base) });
  deps.logger.info({ scheduleId: doc.id, organizationId: key.organizationId }, 'recurring schedule created');
  return scheduleView(doc);
}

/** `PUT /invoices/recurring/:id` (spec rule 2 for `startDate`). */
export async function updateSchedule(
  deps: RecurringDeps,
  key: OrgKey,
  id: string,
  input: RecurringScheduleUpdate,
): Promise<RecurringScheduleRecord> {
  const current = await loadSchedule(deps, key, id);
  if (current.status === 'cancelled' || current.status === 'completed') {
    throw new ConflictError(`recurring schedule ${id} is ${current.status} and cannot be changed`);
  }
  const autoFinalizeInvoices = input.autoFinalizeInvoices ?? current.autoFinalizeInvoices;
  const autoSendInvoices = input.autoSendInvoices ?? current.autoSendInvoices;
  if (autoSendInvoices && !autoFinalizeInvoices)
    throw new ValidationError('autoSendInvoices: requires autoFinalizeInvoices', { field: 'autoSendInvoices' });
  const timezone = input.timezone ?? current.timezone;
  const startDate = input.startDate ?? current.startDate;
  checkDates(startDate, timezone);
  const template = input.template ? templateOf(input.template) : current.template;
  const buyerEmail = input.template
    ? await checkTemplate(deps, key, template, current.nextRunDate ?? startDate, timezone)
    : current.buyerEmail;
  const now = deps.clock.now().toISOString();
  const stored = await schedules(deps).update(
    id,
    (cur) => {
      const next = {
        ...cur,
        ...(input.name ? { name: input.name } : {}),
        timezone,
        template,
        buyerEmail,
        autoFinalizeInvoices,
        autoSendInvoices,
        updatedAt: now,
      };
      next.interval = input.interval ?? cur.interval;
      next.intervalCount = input.intervalCount ?? cur.intervalCount;
      const cadenceChanged =
        startDate !== cur.startDate || next.interval !== cur.interval || next.intervalCount !== cur.intervalCount;
      if (cadenceChanged) {
        if (cur.invoicesGenerated === 0) {
          // Rule 2: before any invoice, the start date (and cadence) simply move the next run.
          next.startDate = startDate;
          next.nextCycle = 0;
          next.nextRunDate = startDate;
        } else {
          // Rule 2: after invoices, the new plan (start date, cadence) must begin after the current next run.
          if (cur.nextRunDate !== null && startDate <= cur.nextRunDate) {
            throw new ValidationError(
              `startDate: invoices were generated; a new startDate (needed for a new cadence too) must be after the current nextRunDate ${cur.nextRunDate}`,
              { field: 'startDate' },
            );
          }
          next.startDate = startDate;
          next.nextCycle = 0;
          next.nextRunDate = startDate;
        }
        if (cur.status === 'cancel_requested') next.effectiveFromCycle = 0;
      }
      return { ...next, dueFrom: dueFromOf(next) };
    },
    3,
    current,
  );
  return scheduleView(stored);
}

/** `GET /invoices/recurring`. */
export async function listSchedules(deps: RecurringDeps, key: OrgKey, q: RecurringListQuery) {
  const filter: Filter = { organizationId: key.organizationId, mode: key.mode };
  if (q.status) filter.status = q.status;
  if (q.clientId) filter['template.clientId'] = q.clientId;
  const page = await schedules(deps).find(filter, {
    sort: { createdAt: -1 },
    page: q.page,
    limit: q.limit,
    total: true,
  });
  return { items: page.items.map(scheduleView), total: page.total, page: page.page, limit: q.limit };
}

/** Pause and resume. A resumed schedule skips the cycles whose dates passed while it was paused. */
export async function pauseOrResume(
  deps: RecurringDeps,
  key: OrgKey,
  id: string,
  trigger: Extract<ScheduleTrigger, 'pause' | 'resume'>,
): Promise<RecurringScheduleRecord> {
  const current = await loadSchedule(deps, key, id);
  const nowDate = deps.clock.now();
  const stored = await schedules(deps).update(
    id,
    (cur) => {
      const t = scheduleTransition(cur.status, trigger);
      if (t.kind === 'unchanged') return null;
      const next = { ...cur, status: t.next, updatedAt: nowDate.toISOString() };
      if (trigger === 'pause') next.pausedAt = nowDate.toISOString();
      else {
        next.pausedAt = null;
        const today = dayIn(nowDate, cur.timezone);
        if (cur.nextRunDate !== null && cur.nextRunDate < today) {
          // The first cycle on or after today (after yesterday): the paused cycles are not billed.
          const k = firstCycleAfter(cur.startDate, intervalOf(cur), addDays(today, -1));
          next.nextCycle = Math.max(cur.nextCycle, k);
          next.nextRunDate = dateOfCycle(cur, next.nextCycle);
        }
      }
      return { ...next, dueFrom: dueFromOf(next) };
    },
    3,
    current,
  );
  return scheduleView(stored);
}

export interface CancelOutcome {
  schedule: ScheduleDoc;
  alreadyCancelled: boolean;
}

/**
 * Cancel (spec rule 3): future-cycle. A schedule with a next run becomes `cancel_requested` from
 * that cycle on (it is never billed); one without a next run is cancelled at once. A repeat keeps
 * the state and the first request's values.
 */
export async function cancelSchedule(
  deps: RecurringDeps,
  key: OrgKey,
  id: string,
  { reason }: RecurringCancel,
  actor: string,
): Promise<CancelOutcome> {
  const current = await loadSchedule(deps, key, id);
  let already = false;
  const now = deps.clock.now().toISOString();
  const stored = await schedules(deps).update(
    id,
    (cur) => {
      const trigger: ScheduleTrigger = cur.nextRunDate === null ? 'cancel_now' : 'cancel';
      const t = scheduleTransition(cur.status, trigger);
      if (t.kind === 'unchanged') {
        already = true;
        return null;
      }
      already = false;
      const next: ScheduleDoc = {
        ...cur,
        status: t.next,
        effectiveFromCycle: t.next === 'cancel_requested' ? cur.nextCycle : null,
        cancellationRequestedAt: now,
        cancelledBy: actor,
        cancellationReason: reason,
        cancelledAt: t.next === 'cancelled' ? now : null,
        updatedAt: now,
      };
      if (t.next === 'cancelled') next.nextRunDate = null;
      return { ...next, dueFrom: dueFromOf(next) };
    },
    3,
    current,
  );
  if (!already)
    deps.logger.info(
      { scheduleId: id, organizationId: key.organizationId, status: stored.status },
      'recurring schedule cancellation requested',
    );
  return { schedule: stored, alreadyCancelled: already };
}
