import '@paymesh/telemetry/register';
import { systemClock } from '@paymesh/core';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { registerTaxService } from './grpc/server';
import { collections } from './store/collections';

void runBackendService({
  name: 'tax',
  config,
  collections,
  async setup({ grpc, logger, store }) {
    registerTaxService(grpc, { store, clock: systemClock, logger });
  },
});
