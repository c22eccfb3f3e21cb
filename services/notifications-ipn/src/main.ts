import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerNotificationsIpnService } from './grpc/server';

void runBackendService({
  name: 'notifications-ipn',
  config,
  collections: [],
  async setup({ grpc, logger }) {
    registerNotificationsIpnService(grpc, logger);
  },
});
