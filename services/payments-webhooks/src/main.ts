import '@paymesh/telemetry/register';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import { runBackendService } from '@paymesh/runtime';
import { allowedApiOrigins, config } from './config';
import { collections } from './store/collections';
import { registerPaymentsWebhooksService } from './grpc/server';
import { adapterFactory } from './providers/registry';
import { ProviderAdapters } from './providers/cache';
import type { PaymentsDeps } from './app/deps';
import { reconcilerLoop } from './jobs/reconciler';

const reconcileOptions = {
  minPendingAgeMs: config.RECONCILE_MIN_PENDING_AGE_MS,
  intervalMs: config.RECONCILE_INTERVAL_MS,
  maxAgeMs: config.RECONCILE_MAX_AGE_MS,
};

void runBackendService({
  name: 'payments-webhooks',
  config,
  collections,
  async setup({ grpc, logger, store, relay }) {
    const deps: PaymentsDeps = {
      store,
      outbox: new Committer<EventMap>({ store, relay }),
      secrets: new SecretBox(resolveKeyring(config)),
      clock: systemClock,
      logger,
      adapters: new ProviderAdapters(
        adapterFactory({
          provider_a: {
            defaultApiBaseUrl: config.PROVIDER_A_API_BASE_URL,
            timeoutMs: config.PROVIDER_A_TIMEOUT_MS,
            maxNetworkRetries: config.PROVIDER_A_MAX_NETWORK_RETRIES,
          },
          provider_b: {
            defaultApiBaseUrl: config.PROVIDER_B_API_BASE_URL,
            timeoutMs: config.PROVIDER_B_TIMEOUT_MS,
            maxNetworkRetries: config.PROVIDER_B_MAX_NETWORK_RETRIES,
          },
          provider_c: {
            defaultApiBaseUrl: config.PROVIDER_C_API_BASE_URL,
            timeoutMs: config.PROVIDER_C_TIMEOUT_MS,
            maxNetworkRetries: config.PROVIDER_C_MAX_NETWORK_RETRIES,
          },
          provider_d: {
            defaultApiBaseUrl: config.PROVIDER_D_API_BASE_URL,
            timeoutMs: config.PROVIDER_D_TIMEOUT_MS,
            maxNetworkRetries: config.PROVIDER_D_MAX_NETWORK_RETRIES,
            webhookToleranceMs: config.PROVIDER_D_WEBHOOK_TOLERANCE_MS,
          },
        }),
      ),
      publicRootUrl: config.PUBLIC_ROOT_URL,
      requireHttps: config.NODE_ENV === 'production',
      allowedApiOrigins: allowedApiOrigins(config),
      reconcile: reconcileOptions,
    };
    registerPaymentsWebhooksService(grpc, deps);
    const reconciler = reconcilerLoop(deps, {
      ...reconcileOptions,
      batchSize: config.RECONCILE_BATCH_SIZE,
      pollIntervalMs: config.RECONCILE_INTERVAL_MS,
    });
    reconciler.start();
    return () => reconciler.stop();
  },
});
