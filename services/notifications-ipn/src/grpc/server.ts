import { notificationsIpn } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerNotificationsIpnService(grpc: GrpcServer, logger: Logger): void {
  const impl: notificationsIpn.NotificationsIpnServiceServer = {
    describe: unary(logger, 'notifications-ipn/Describe', async () => ({ service: 'notifications-ipn', version: SERVICE_VERSION })),
  };
  grpc.addService(notificationsIpn.NotificationsIpnServiceService, impl);
}
