import '@paymesh/telemetry/register';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerBillingService } from './grpc/server';
import { collections } from './store/collections';
import { startConsumers } from './events/consumers';

void runBackendService({
  name: 'billing',
  config,
  collections,
  async setup({ grpc, logger, bus, store }) {
    registerBillingService(grpc, logger);
    const subs = await startConsumers(bus, store, logger);
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
    };
  },
});
