import { recurring } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { DomainError, type Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

type Impl = recurring.RecurringServiceServer;

/** An RPC of the contract whose capability has not landed yet: answers `not_supported` (501). */
function notYet<Req>(logger: Logger, name: string) {
  return unary<Req, recurring.RecurringJsonResponse>(logger, `recurring/${name}`, async () => {
    throw new DomainError('not_supported', `recurring/${name} is not available yet`);
  });
}

export function registerRecurringService(grpc: GrpcServer, logger: Logger): void {
  const impl: Impl = {
    describe: unary(logger, 'recurring/Describe', async () => ({ service: 'recurring', version: SERVICE_VERSION })),
    listSchedules: notYet<recurring.RecurringJsonRequest>(logger, 'ListSchedules'),
    getSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'GetSchedule'),
    createSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'CreateSchedule'),
    updateSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'UpdateSchedule'),
    pauseSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'PauseSchedule'),
    resumeSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'ResumeSchedule'),
    cancelSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'CancelSchedule'),
    generateSchedule: notYet<recurring.RecurringJsonRequest>(logger, 'GenerateSchedule'),
    upcomingCharges: notYet<recurring.RecurringJsonRequest>(logger, 'UpcomingCharges'),
    processDue: notYet<recurring.RecurringJsonRequest>(logger, 'ProcessDue'),
    processorStatus: notYet<recurring.RecurringJsonRequest>(logger, 'ProcessorStatus'),
    countPortalSubscriptions: notYet<recurring.PortalRecurringRequest>(logger, 'CountPortalSubscriptions'),
    listPortalSubscriptions: notYet<recurring.PortalRecurringRequest>(logger, 'ListPortalSubscriptions'),
    portalUpcoming: notYet<recurring.PortalRecurringRequest>(logger, 'PortalUpcoming'),
    portalCancel: notYet<recurring.PortalRecurringRequest>(logger, 'PortalCancel'),
  };
  grpc.addService(recurring.RecurringServiceService, impl);
}
