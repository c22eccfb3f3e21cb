import '@paymesh/telemetry/register';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
import { runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { collections } from './store/collections';
import { registerCheckoutService } from './grpc/server';
import { createCnameResolver } from './dns/resolver';

void runBackendService({
  name: 'checkout',
  config,
  collections,
  async setup({ grpc, logger, store, relay }) {
    const secrets = new SecretBox(resolveKeyring(config));
    const resolver = createCnameResolver({ servers: config.DNS_RESOLVERS, timeoutMs: config.DNS_TIMEOUT_MS, tries: config.DNS_TRIES });
    registerCheckoutService(grpc, {
      store,
      relay,
      secrets,
      clock: systemClock,
      logger,
      customDomains: { resolver, cnameTarget: config.CUSTOM_DOMAIN_CNAME_TARGET },
    });
  },
});
