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

void runBackendService({
  name: 'payments-webhooks',
  config,
  collections,
  async setup({ grpc, logger, store, relay }) {
    registerPaymentsWebhooksService(grpc, {
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
        }),
      ),
      publicRootUrl: config.PUBLIC_ROOT_URL,
      requireHttps: config.NODE_ENV === 'production',
      allowedApiOrigins: allowedApiOrigins(config),
    });
  },
});
