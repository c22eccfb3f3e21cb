import '@paymesh/telemetry/register';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { collections } from './store/collections';
import { registerCheckoutService } from './grpc/server';

void runBackendService({
  name: 'checkout',
  config,
  collections,
  async setup({ grpc, logger, store, relay }) {
    const secrets = new SecretBox(resolveKeyring(config));
    registerCheckoutService(grpc, { store, relay, secrets, clock: systemClock, logger });
  },
});
