import { notificationsIpn } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { NotSupportedError, type Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerNotificationsIpnService(grpc: GrpcServer, logger: Logger): void {
  const impl: notificationsIpn.NotificationsIpnServiceServer = {
    describe: unary(logger, 'notifications-ipn/Describe', async () => ({ service: 'notifications-ipn', version: SERVICE_VERSION })),
    // NOTE: answers UNIMPLEMENTED until IPN delivery lands.
    listDeliveries: unary(logger, 'notifications-ipn/ListDeliveries', async (): Promise<never> => {
      throw new NotSupportedError('ListDeliveries is not available yet');
    }),
  };
  grpc.addService(notificationsIpn.NotificationsIpnServiceService, impl);
}
