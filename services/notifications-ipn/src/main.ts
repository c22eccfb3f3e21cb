import '@paymesh/telemetry/register';
import { describeAllowList, systemClock } from '@paymesh/core';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import type { IpnDeps } from './app/deps';
import { CheckoutSigningSecrets } from './delivery/checkout-secrets';
import { HttpIpnSender } from './delivery/http-sender';
import { DeliveryScheduler } from './delivery/scheduler';
import { startConsumers } from './events/consumers';
import { registerNotificationsIpnService } from './grpc/server';
import { collections } from './store/collections';

void runBackendService({
  name: 'notifications-ipn',
  config,
  collections,
  async setup({ grpc, logger, bus, store }) {
    const secrets = new CheckoutSigningSecrets(config.CHECKOUT_GRPC_ADDR, config.GRPC_DEADLINE_MS);
    const sender = new HttpIpnSender({ timeoutMs: config.IPN_TIMEOUT_MS, allowedTargets: config.IPN_ALLOWED_TARGETS });
    const deps: IpnDeps = {
      store,
      logger,
      clock: systemClock,
      secrets,
      sender,
      timing: {
        backoffBaseMs: config.IPN_BACKOFF_BASE_MS,
        timeoutMs: config.IPN_TIMEOUT_MS,
        leaseMarginMs: 5_000,
        waitFloorMs: 1_000,
      },
    };
    registerNotificationsIpnService(grpc, deps);
    const scheduler = new DeliveryScheduler(deps, { pollIntervalMs: config.IPN_POLL_INTERVAL_MS, concurrency: config.IPN_CONCURRENCY });
    const subs = await startConsumers(bus, deps, () => scheduler.wake());
    scheduler.start();
    logger.info(
      { backoffBaseMs: config.IPN_BACKOFF_BASE_MS, timeoutMs: config.IPN_TIMEOUT_MS, allowedTargets: describeAllowList(config.IPN_ALLOWED_TARGETS) },
      'IPN delivery scheduler started',
    );
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
      await scheduler.stop();
      await sender.close();
      secrets.close();
    };
  },
});
