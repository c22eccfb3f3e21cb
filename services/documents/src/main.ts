import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerDocumentsService } from './grpc/server';

void runBackendService({
  name: 'documents',
  config,
  collections: [],
  async setup({ grpc, logger }) {
    registerDocumentsService(grpc, logger);
  },
});
