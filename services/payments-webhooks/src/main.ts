import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerPaymentsWebhooksService } from './grpc/server';

void runBackendService({
  name: 'payments-webhooks',
  config,
  collections: [],
  async setup({ grpc, logger }) {
    registerPaymentsWebhooksService(grpc, logger);
  },
});
