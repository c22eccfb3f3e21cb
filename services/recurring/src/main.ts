import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerRecurringService } from './grpc/server';

void runBackendService({
  name: 'recurring',
  config,
  collections: [],
  async setup({ grpc, logger }) {
    registerRecurringService(grpc, logger);
  },
});
