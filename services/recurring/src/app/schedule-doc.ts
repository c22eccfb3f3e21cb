import type { StoredDoc } from '@paymesh/store';
import type { InvoiceItem, RecurringScheduleRecord } from '@paymesh/contracts';
import { cadenceOf, cycleDate, dayStartsAt, type Interval, type IntervalUnit } from '../domain/schedule-dates';
import type { ScheduleStatus } from '../domain/schedule-state';

export interface ScheduleTemplate {
  siteId: string;
  clientId: string;
  currency: string;
  items: InvoiceItem[];
  paymentTermsDays: number | null;
  notes: string | null;
}

/** A recurring schedule (collection `schedules`). */
export interface ScheduleDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  name: string;
  status: ScheduleStatus;
  startDate: string;
  interval: IntervalUnit;
  intervalCount: number;
  timezone: string;
  template: ScheduleTemplate;
  autoFinalizeInvoices: boolean;
  autoSendInvoices: boolean;
  /** Next cycle to generate (0 = the start date). */
  nextCycle: number;
  /** Date of `nextCycle`; null once no cycle will run. */
  nextRunDate: string | null;
  /**
   * Internal: the instant the processor acts on the schedule (the start of `nextRunDate`, or of the
   * cancellation's effective date, in the schedule's zone); null when it never will. Not in answers.
   */
  dueFrom: string | null;
  invoicesGenerated: number;
  lastInvoiceId: string | null;
  /** The client's e-mail, trimmed and lower-cased, read from billing at create and update (portal ownership). */
  buyerEmail: string | null;
  effectiveFromCycle: number | null;
  cancellationRequestedAt: string | null;
  cancelledBy: string | null;
  cancellationReason: string | null;
  cancelledAt: string | null;
  pausedAt: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export const intervalOf = (s: Pick<ScheduleDoc, 'interval' | 'intervalCount'>): Interval => ({
  unit: s.interval,
  count: s.intervalCount,
});

export const dateOfCycle = (s: Pick<ScheduleDoc, 'startDate' | 'interval' | 'intervalCount'>, k: number): string =>
  cycleDate(s.startDate, intervalOf(s), k);

/** The date a scheduled cancellation takes effect (its cycle's date; older records: `nextRunDate`). */
export function effectiveDate(s: ScheduleDoc): string | null {
  if (s.effectiveFromCycle !== null && s.effectiveFromCycle !== undefined) return dateOfCycle(s, s.effectiveFromCycle);
  return s.nextRunDate;
}

/** `dueFrom` for a schedule's state: when the processor next has something to do. */
export function dueFromOf(
  s: Pick<ScheduleDoc, 'status' | 'timezone' | 'nextRunDate'> & Partial<ScheduleDoc>,
): string | null {
  if (s.status === 'active' && s.nextRunDate) return dayStartsAt(s.nextRunDate, s.timezone);
  if (s.status === 'cancel_requested') {
    const date = effectiveDate(s as ScheduleDoc);
    return date ? dayStartsAt(date, s.timezone) : null;
  }
  return null;
}

export function scheduleView(s: ScheduleDoc): RecurringScheduleRecord {
  const effective = s.status === 'cancel_requested' || s.status === 'cancelled' ? effectiveDate(s) : null;
  return {
    id: s.id,
    testMode: s.mode === 'test',
    name: s.name,
    status: s.status,
    startDate: s.startDate,
    interval: s.interval,
    intervalCount: s.intervalCount,
    cadence: cadenceOf(intervalOf(s)),
    timezone: s.timezone,
    nextRunDate: s.nextRunDate,
    nextCycle: s.nextCycle,
    invoicesGenerated: s.invoicesGenerated,
    lastInvoiceId: s.lastInvoiceId,
    template: s.template,
    autoFinalizeInvoices: s.autoFinalizeInvoices,
    autoSendInvoices: s.autoSendInvoices,
    effectiveFromCycle: s.effectiveFromCycle,
    effectiveAt: effective,
    cancellationRequestedAt: s.cancellationRequestedAt,
    cancelledBy: s.cancelledBy,
    cancellationReason: s.cancellationReason,
    cancelledAt: s.cancelledAt,
    pausedAt: s.pausedAt,
    createdBy: s.createdBy,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
