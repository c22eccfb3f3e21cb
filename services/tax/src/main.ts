import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerTaxService } from './grpc/server';

void runBackendService({
  name: 'tax',
  config,
  collections: [],
  async setup({ grpc, logger }) {
    registerTaxService(grpc, logger);
  },
});
