import { recurring } from '@paymesh/proto';
import { jsonUnary, unary, type GrpcServer } from '@paymesh/grpc';
import { ValidationError, isObjectId } from '@paymesh/core';
import type { RecurringDeps } from '../app/deps';
import type { OrgKey } from '../app/billing-port';
import {
  cancelSchedule,
  createSchedule,
  listSchedules,
  loadSchedule,
  pauseOrResume,
  updateSchedule,
} from '../app/schedules';
import { scheduleView } from '../app/schedule-doc';
import {
  countPortal,
  generateNow,
  listPortal,
  portalCancel,
  portalUpcoming,
  portalUpcomingProforma,
  upcomingOf,
  type PortalKey,
} from '../app/upcoming';
import { processDue, processorStatus } from '../app/processor';

const SERVICE_VERSION = '0.1.0';

type Impl = recurring.RecurringServiceServer;
type Req = recurring.RecurringJsonRequest;

function orgKeyOf(req: { organizationId: string; testMode: boolean }): OrgKey {
  if (!isObjectId(req.organizationId))
    throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return { organizationId: req.organizationId, mode: req.testMode ? 'test' : 'live' };
}

function idOf(req: { id: string }): string {
  if (!isObjectId(req.id)) throw new ValidationError('id must be a 24-hex identifier', { field: 'id' });
  return req.id;
}

const portalKeyOf = (req: recurring.PortalRecurringRequest): PortalKey => ({ ...orgKeyOf(req), email: req.email });
const actorOf = (req: Req) => req.actor || 'unknown';

export function registerRecurringService(grpc: GrpcServer, deps: RecurringDeps): void {
  const { logger } = deps;
  const rpc = (name: string, fn: (req: Req) => Promise<unknown>) => jsonUnary<Req>(logger, `recurring/${name}`, fn);
  const portal = (name: string, fn: (req: recurring.PortalRecurringRequest) => Promise<unknown>) =>
    jsonUnary<recurring.PortalRecurringRequest>(logger, `recurring/${name}`, fn);
  const impl: Impl = {
    describe: unary(logger, 'recurring/Describe', async () => ({ service: 'recurring', version: SERVICE_VERSION })),
    listSchedules: rpc('ListSchedules', async (req) => listSchedules(deps, orgKeyOf(req), req.bodyJson)),
    getSchedule: rpc('GetSchedule', async (req) => scheduleView(await loadSchedule(deps, orgKeyOf(req), idOf(req)))),
    createSchedule: rpc('CreateSchedule', async (req) =>
      createSchedule(deps, orgKeyOf(req), req.bodyJson, req.actor || null),
    ),
    updateSchedule: rpc('UpdateSchedule', async (req) => updateSchedule(deps, orgKeyOf(req), idOf(req), req.bodyJson)),
    pauseSchedule: rpc('PauseSchedule', async (req) => pauseOrResume(deps, orgKeyOf(req), idOf(req), 'pause')),
    resumeSchedule: rpc('ResumeSchedule', async (req) => pauseOrResume(deps, orgKeyOf(req), idOf(req), 'resume')),
    cancelSchedule: rpc('CancelSchedule', async (req) =>
      scheduleView((await cancelSchedule(deps, orgKeyOf(req), idOf(req), req.bodyJson, actorOf(req))).schedule),
    ),
    generateSchedule: rpc('GenerateSchedule', async (req) => generateNow(deps, orgKeyOf(req), idOf(req), actorOf(req))),
    upcomingCharges: rpc('UpcomingCharges', async (req) =>
      upcomingOf(deps, await loadSchedule(deps, orgKeyOf(req), idOf(req)), req.bodyJson),
    ),
    processDue: rpc('ProcessDue', async (req) => processDue(deps, req.bodyJson)),
    processorStatus: rpc('ProcessorStatus', async () => processorStatus(deps)),
    countPortalSubscriptions: portal('CountPortalSubscriptions', async (req) => countPortal(deps, portalKeyOf(req))),
    listPortalSubscriptions: portal('ListPortalSubscriptions', async (req) =>
      listPortal(deps, portalKeyOf(req), req.bodyJson),
    ),
    portalUpcoming: portal('PortalUpcoming', async (req) =>
      portalUpcoming(deps, portalKeyOf(req), idOf(req), req.bodyJson),
    ),
    portalCancel: portal('PortalCancel', async (req) => portalCancel(deps, portalKeyOf(req), idOf(req), req.bodyJson)),
    portalUpcomingProformaPdf: unary(
      logger,
      'recurring/PortalUpcomingProformaPdf',
      async (req: recurring.PortalRecurringRequest): Promise<recurring.RecurringPdfResponse> =>
        portalUpcomingProforma(deps, portalKeyOf(req), idOf(req), req.bodyJson),
    ),
  };
  grpc.addService(recurring.RecurringServiceService, impl);
}
