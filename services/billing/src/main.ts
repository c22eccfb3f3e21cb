import '@paymesh/telemetry/register';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
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
    const secrets = new SecretBox(resolveKeyring(config));
    registerBillingService(grpc, { store, secrets, clock: systemClock, logger });
    const subs = await startConsumers(bus, store, logger);
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
    };
  },
});
