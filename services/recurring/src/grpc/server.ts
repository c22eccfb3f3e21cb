import { recurring } from '@paymesh/proto';
import { envelopeServer, unary, type GrpcServer, type JsonEnvelope } from '@paymesh/grpc';
import { recurringFileRpc, recurringRpc } from '@paymesh/contracts';
import { type WireTenant, tenantOf, requireObjectId } from '@paymesh/core';
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

const orgKeyOf = (req: WireTenant): OrgKey => tenantOf(req);
const idOf = (req: { id: string }): string => requireObjectId(req.id, 'id');

const actorOf = (req: JsonEnvelope) => req.actor || 'unknown';

export function registerRecurringService(grpc: GrpcServer, deps: RecurringDeps): void {
  const { logger } = deps;
  const rpc = envelopeServer(logger, 'recurring', recurringRpc, recurringFileRpc);
  const portalKeyOf = (req: JsonEnvelope): PortalKey => ({ ...orgKeyOf(req), email: req.email ?? '' });
  const impl: recurring.RecurringServiceServer = {
    describe: unary(logger, 'recurring/Describe', async () => ({ service: 'recurring', version: SERVICE_VERSION })),
    listSchedules: rpc.json('listSchedules', async (query, req) => listSchedules(deps, orgKeyOf(req), query)),
    getSchedule: rpc.json('getSchedule', async (_body, req) =>
      scheduleView(await loadSchedule(deps, orgKeyOf(req), idOf(req))),
    ),
    createSchedule: rpc.json('createSchedule', async (input, req) =>
      createSchedule(deps, orgKeyOf(req), input, req.actor || null),
    ),
    updateSchedule: rpc.json('updateSchedule', async (input, req) =>
      updateSchedule(deps, orgKeyOf(req), idOf(req), input),
    ),
    pauseSchedule: rpc.json('pauseSchedule', async (_body, req) =>
      pauseOrResume(deps, orgKeyOf(req), idOf(req), 'pause'),
    ),
    resumeSchedule: rpc.json('resumeSchedule', async (_body, req) =>
      pauseOrResume(deps, orgKeyOf(req), idOf(req), 'resume'),
    ),
    cancelSchedule: rpc.json('cancelSchedule', async (cancel, req) =>
      scheduleView((await cancelSchedule(deps, orgKeyOf(req), idOf(req), cancel, actorOf(req))).schedule),
    ),
    generateSchedule: rpc.json('generateSchedule', async (_body, req) =>
      generateNow(deps, orgKeyOf(req), idOf(req), actorOf(req)),
    ),
    upcomingCharges: rpc.json('upcomingCharges', async ({ count }, req) =>
      upcomingOf(deps, await loadSchedule(deps, orgKeyOf(req), idOf(req)), count),
    ),
    processDue: rpc.json('processDue', async (body) => processDue(deps, body)),
    processorStatus: rpc.json('processorStatus', async () => processorStatus(deps)),
    countPortalSubscriptions: rpc.json('countPortalSubscriptions', async (_body, req) =>
      countPortal(deps, portalKeyOf(req)),
    ),
    listPortalSubscriptions: rpc.json('listPortalSubscriptions', async (page, req) =>
      listPortal(deps, portalKeyOf(req), page),
    ),
    portalUpcoming: rpc.json('portalUpcoming', async ({ count }, req) =>
      portalUpcoming(deps, portalKeyOf(req), idOf(req), count),
    ),
    portalCancel: rpc.json('portalCancel', async (cancel, req) =>
      portalCancel(deps, portalKeyOf(req), idOf(req), cancel),
    ),
    portalUpcomingProformaPdf: rpc.file(
      'portalUpcomingProformaPdf',
      async ({ upcomingId }, req): Promise<recurring.RecurringPdfResponse> =>
        portalUpcomingProforma(deps, portalKeyOf(req), idOf(req), upcomingId),
    ),
  };
  grpc.addService(recurring.RecurringServiceService, impl);
}
