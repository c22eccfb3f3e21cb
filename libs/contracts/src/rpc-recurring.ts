import { z } from 'zod';
import {
  portalCancelResult,
  portalSubscriptionPage,
  recurringCancel,
  recurringGenerateResult,
  recurringListQuery,
  recurringProcessorStatus,
  recurringProcessRequest,
  recurringProcessResult,
  recurringScheduleCreate,
  recurringSchedulePage,
  recurringScheduleRecord,
  recurringScheduleUpdate,
  upcomingCharges,
  upcomingQuery,
} from './recurring';
import { emptyBody, envelopeRpc, jsonRpc } from './rpc';

/**
 * Paging of the portal's subscription list. The buyer of a portal call is the envelope's `email`
 * (a schedule is the buyer's when its client's e-mail is this one; an empty one owns nothing).
 */
export const portalSubscriptionsQuery = z
  .object({
    page: z.number().int().min(1).default(1),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();

/** The recurring service's JSON-answer RPCs: method -> body schema and answer schema. */
export const recurringRpc = {
  listSchedules: jsonRpc(recurringListQuery, recurringSchedulePage),
  getSchedule: jsonRpc(emptyBody, recurringScheduleRecord),
  createSchedule: jsonRpc(recurringScheduleCreate, recurringScheduleRecord),
  updateSchedule: jsonRpc(recurringScheduleUpdate, recurringScheduleRecord),
  pauseSchedule: jsonRpc(emptyBody, recurringScheduleRecord),
  resumeSchedule: jsonRpc(emptyBody, recurringScheduleRecord),
  cancelSchedule: jsonRpc(recurringCancel, recurringScheduleRecord),
  generateSchedule: jsonRpc(emptyBody, recurringGenerateResult),
  upcomingCharges: jsonRpc(upcomingQuery, upcomingCharges),
  processDue: jsonRpc(recurringProcessRequest, recurringProcessResult),
  processorStatus: jsonRpc(emptyBody, recurringProcessorStatus),

  countPortalSubscriptions: jsonRpc(emptyBody, z.object({ count: z.number().int() })),
  listPortalSubscriptions: jsonRpc(portalSubscriptionsQuery, portalSubscriptionPage),
  portalUpcoming: jsonRpc(upcomingQuery, upcomingCharges),
  portalCancel: jsonRpc(recurringCancel, portalCancelResult),
} as const;

/** Recurring's RPCs with a JSON body and a file answer (`RecurringPdfResponse`). */
export const recurringFileRpc = {
  portalUpcomingProformaPdf: envelopeRpc(z.object({ upcomingId: z.string().min(1).max(100) }).strict()),
} as const;
