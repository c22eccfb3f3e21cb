import '@paymesh/telemetry/register';
import { systemClock } from '@paymesh/core';
import { downstreamAddr, runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { collections } from './store/collections';
import { registerRecurringService } from './grpc/server';
import { grpcBillingPort } from './grpc/billing-client';

void runBackendService({
  name: 'recurring',
  config,
  collections,
  async setup({ grpc, logger, store }) {
    if (config.RECURRING_TEST_HOOKS && config.NODE_ENV === 'production')
      throw new Error('RECURRING_TEST_HOOKS must not be set in production');
    const billing = grpcBillingPort(
      downstreamAddr(config, 'billing'),
      config.BILLING_DEADLINE_MS,
      config.BILLING_PDF_DEADLINE_MS,
    );
    registerRecurringService(grpc, {
      store,
      billing,
      clock: systemClock,
      logger,
      settings: { claimLeaseMs: config.RECURRING_CLAIM_LEASE_MS, testHooks: config.RECURRING_TEST_HOOKS },
    });
    return async () => {
      billing.close();
    };
  },
});
