import { notificationsIpn } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { IpnDeps } from '../app/deps';
import { listDeliveries } from '../app/list-deliveries';
import { INTERRUPTED } from '../domain/delivery';
import type { DeliveryDoc } from '../store/collections';

const SERVICE_VERSION = '0.1.0';

function toProto(d: DeliveryDoc, now: Date): notificationsIpn.IpnDelivery {
  const inFlight = d.inFlightAttempt !== null && d.leaseUntil !== null && d.leaseUntil > now.toISOString();
  return {
    id: d.id,
    transactionId: d.transactionId,
    status: d.status,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      at: a.at,
      httpStatus: a.httpStatus,
      // The claimed attempt reads "interrupted" until its outcome lands; while its lease runs it is in progress.
      error: inFlight && a.number === d.inFlightAttempt && a.error === INTERRUPTED ? 'in progress' : a.error,
      durationMs: a.durationMs,
    })),
    lastHttpStatus: d.lastHttpStatus,
    nextAttemptAt: d.nextAttemptAt ?? '',
    createdAt: d.createdAt,
    sequence: d.sequence,
    lastError: d.lastError ?? '',
    updatedAt: d.updatedAt,
    testMode: d.mode === 'test',
  };
}

export function registerNotificationsIpnService(grpc: GrpcServer, deps: IpnDeps): void {
  const { logger } = deps;
  const impl: notificationsIpn.NotificationsIpnServiceServer = {
    describe: unary(logger, 'notifications-ipn/Describe', async () => ({ service: 'notifications-ipn', version: SERVICE_VERSION })),
    listDeliveries: unary(logger, 'notifications-ipn/ListDeliveries', async (req: notificationsIpn.ListDeliveriesRequest) => {
      const items = await listDeliveries(deps, req.organizationId, req.transactionId);
      const now = deps.clock.now();
      return { items: items.map((d) => toProto(d, now)) };
    }),
  };
  grpc.addService(notificationsIpn.NotificationsIpnServiceService, impl);
}
