import { z } from 'zod';
import { objectId } from '@paymesh/http';
import {
  DEFAULT_UPCOMING_CHARGES,
  MAX_UPCOMING_CHARGES,
  RECURRING_STATUSES,
  recurringProcessBody,
  recurringScheduleCreate,
  recurringScheduleUpdate,
  upcomingQuery,
} from '@paymesh/contracts';
import {
  recurringGenerateResponse,
  recurringProcessResponse,
  recurringSchedulePageResponse,
  recurringScheduleResponse,
  recurringStatusResponse,
  recurringUpcomingResponse,
} from '../responses/recurring';
import { resource, type OrgScope } from '../route-table';
import { idParams, noBody, pageQuery } from './common';
import { recurringJson, toRecurring } from './recurring-rpc';

const system = resource({ tag: 'System', scopePrefix: 'system', audience: 'system' });

/** System routes act across organizations: the tenant fields of the request are unused. */
const ALL_ORGANIZATIONS: OrgScope = { organizationId: '000000000000000000000000', mode: 'live' };

const listQuery = z
  .object({
    status: z.enum(RECURRING_STATUSES).optional(),
    clientId: objectId('clientId').optional(),
    ...pageQuery(20).shape,
  })
  .strict();

const cancelBody = z
  .object({ reason: z.string().max(10_000).optional().describe('trimmed and cut to 500 characters') })
  .strict();

const schedules = resource({ tag: 'Recurring schedules', scopePrefix: 'invoice' });

/** Pausing or resuming a schedule: POST /invoices/recurring/:id/<verb> without a body, 200 with the schedule. */
function scheduleSwitch(verb: 'pause' | 'resume', summary: string) {
  return schedules({
    method: 'POST',
    path: `/invoices/recurring/:id/${verb}`,
    operationId: `${verb}RecurringSchedule`,
    action: 'execute',
    status: 200,
    response: recurringScheduleResponse,
    errors: [409],
    summary,
    params: idParams,
    body: noBody,
    handler: toRecurring.byIdActing(`${verb}Schedule`),
  });
}

/** Recurring invoice schedules (`invoice:*` scopes) and the due-schedule processor (system). */
export const recurringRoutes = [
  schedules({
    method: 'GET',
    path: '/invoices/recurring',
    operationId: 'listRecurringSchedules',
    response: recurringSchedulePageResponse,
    summary: 'List recurring schedules, newest first (status, clientId, page, limit)',
    query: listQuery,
    handler: toRecurring.query('listSchedules'),
  }),
  schedules({
    method: 'POST',
    path: '/invoices/recurring',
    operationId: 'createRecurringSchedule',
    response: recurringScheduleResponse,
    summary:
      'Create a recurring schedule: startDate, interval, the invoice template (the POST /invoices draft payload); nextRunDate is derived',
    body: recurringScheduleCreate,
    handler: toRecurring.bodyActing('createSchedule'),
  }),
  schedules({
    method: 'GET',
    path: '/invoices/recurring/:id',
    operationId: 'getRecurringSchedule',
    response: recurringScheduleResponse,
    summary: 'Get a recurring schedule',
    params: idParams,
    handler: toRecurring.byId('getSchedule'),
  }),
  schedules({
    method: 'PUT',
    path: '/invoices/recurring/:id',
    operationId: 'updateRecurringSchedule',
    response: recurringScheduleResponse,
    errors: [409],
    summary:
      'Change a recurring schedule; after invoices exist a new startDate (or cadence) must begin after the current nextRunDate',
    params: idParams,
    body: recurringScheduleUpdate,
    handler: toRecurring.byIdBodyActing('updateSchedule'),
  }),
  scheduleSwitch('pause', 'Pause a schedule (idempotent); no invoice is generated while paused'),
  scheduleSwitch('resume', 'Resume a paused schedule (idempotent); cycles whose dates passed while paused are skipped'),
  schedules({
    method: 'POST',
    path: '/invoices/recurring/:id/cancel',
    operationId: 'cancelRecurringSchedule',
    action: 'execute',
    status: 200,
    response: recurringScheduleResponse,
    errors: [409],
    summary:
      'Cancel from the next cycle on (cancel_requested; cancelled at once without a next run); optional reason; repeats keep the first values',
    params: idParams,
    body: cancelBody,
    handler: toRecurring.byIdBodyActing('cancelSchedule'),
  }),
  schedules({
    method: 'POST',
    path: '/invoices/recurring/:id/generate',
    operationId: 'generateRecurringInvoice',
    action: 'execute',
    status: 200,
    response: recurringGenerateResponse,
    errors: [409, 503],
    summary: 'Generate the next cycle now (exactly once per cycle) and advance nextRunDate',
    params: idParams,
    body: noBody,
    handler: toRecurring.byIdActing('generateSchedule'),
  }),
  schedules({
    method: 'GET',
    path: '/invoices/recurring/:id/upcoming',
    operationId: 'listRecurringUpcomingCharges',
    action: 'execute',
    response: recurringUpcomingResponse,
    errors: [503],
    summary: `Projected next charges with the tax engine estimate (count 1 to ${MAX_UPCOMING_CHARGES}, default ${DEFAULT_UPCOMING_CHARGES})`,
    params: idParams,
    query: upcomingQuery,
    handler: toRecurring.byIdQuery('upcomingCharges'),
  }),
  system({
    method: 'POST',
    action: 'execute',
    path: '/system/recurring/process',
    operationId: 'processRecurringSchedules',
    response: recurringProcessResponse,
    role: 'Admin',
    summary:
      'Generate the invoices of every due cycle (exactly once each) and finalize due cancellations, across organizations',
    body: recurringProcessBody,
    async handler({ deps, body }) {
      return recurringJson(deps, ALL_ORGANIZATIONS, 'processDue', {
        body,
        deadlineMs: 300_000,
      });
    },
  }),
  system({
    method: 'GET',
    path: '/system/recurring/status',
    operationId: 'getRecurringProcessorStatus',
    response: recurringStatusResponse,
    summary:
      'Recurring processor status: due schedules and cancellations now, open claims, schedules by state, last runs',
    async handler({ deps }) {
      return recurringJson(deps, ALL_ORGANIZATIONS, 'processorStatus', {});
    },
  }),
];
