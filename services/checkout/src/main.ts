import '@paymesh/telemetry/register';
import { lookup } from 'node:dns/promises';
import { resolveKeyring, SecretBox, systemClock } from '@paymesh/core';
import { Committer, EventCache } from '@paymesh/bus';
import { Subjects, type EventMap } from '@paymesh/contracts';
import { downstreamAddr, runBackendService } from '@paymesh/runtime';
import { config } from './config';
import { collections } from './store/collections';
import { registerCheckoutService } from './grpc/server';
import { createDnsResolver } from './dns/resolver';
import { registerCheckoutPaymentsService } from './grpc/payments-server';
import { grpcPaymentsPort } from './grpc/payments-webhooks-client';
import { withCachedProviders } from './app/cached-providers';
import { grpcTaxPort } from './grpc/tax-client';
import { PriceModeMemo } from './app/price-mode-memo';
import { startConsumers } from './events/consumers';
import type { PaymentsDeps } from './app/payments-deps';
import { buyerRiskGuard } from './app/buyer-risk';
import { expiryWorker } from './jobs/expiry-worker';
import { dashboardBackfillWorker } from './jobs/dashboard-backfill-worker';
import { sessionExpiryWorker } from './jobs/session-expiry-worker';

void runBackendService({
  name: 'checkout',
  config,
  collections,
  async setup({ grpc, logger, store, relay, bus }) {
    const secrets = new SecretBox(resolveKeyring(config));
    const resolver = createDnsResolver({
      servers: config.DNS_RESOLVERS,
      timeoutMs: config.DNS_TIMEOUT_MS,
      tries: config.DNS_TRIES,
    });
    const base = {
      store,
      outbox: new Committer<EventMap>({ store, relay }),
      secrets,
      clock: systemClock,
      logger,
      customDomains: { resolver, cnameTarget: config.CUSTOM_DOMAIN_CNAME_TARGET },
    };
    registerCheckoutService(grpc, base);
    const providerCache = new EventCache('providers');
    await providerCache.watch(bus, [Subjects.providerChanged]);
    const payments = withCachedProviders(
      grpcPaymentsPort(downstreamAddr(config, 'payments-webhooks'), {
        lookupMs: config.GRPC_DEADLINE_MS,
        paymentMs: config.PAYMENTS_DEADLINE_MS,
      }),
      providerCache,
    );
    const tax = grpcTaxPort(downstreamAddr(config, 'tax'), {
      settingsMs: config.TAX_SETTINGS_DEADLINE_MS,
      calculateMs: config.TAX_DEADLINE_MS,
    });
    const deps: PaymentsDeps = {
      ...base,
      payments,
      tax,
      priceModes: new PriceModeMemo(systemClock),
      settings: {
        checkoutFrontendUrl: config.CHECKOUT_FRONTEND_URL,
        sessionTtlHours: config.CHECKOUT_SESSION_TTL_HOURS,
        handoffTtlSeconds: config.HANDOFF_TOKEN_TTL_SECONDS,
        ipnPolicy: { allowHttp: config.ALLOW_HTTP_IPN, allowedTargets: config.IPN_ALLOWED_TARGETS },
        transactionAbandonAfterMs: config.TRANSACTION_ABANDON_AFTER_MS,
      },
      resolveHost: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
      guards: [],
    };
    deps.guards.push(buyerRiskGuard(deps));
    registerCheckoutPaymentsService(grpc, deps);
    const subs = await startConsumers(bus, deps);
    const expiry = expiryWorker(deps, {
      batchSize: config.EXPIRY_BATCH_SIZE,
      retryMs: config.EXPIRY_INTERVAL_MS,
      retryCapMs: config.EXPIRY_RETRY_MAX_MS,
      pollIntervalMs: config.EXPIRY_INTERVAL_MS,
    });
    expiry.start();
    const sessionExpiry = sessionExpiryWorker(deps, {
      batchSize: config.EXPIRY_BATCH_SIZE,
      retryMs: config.EXPIRY_INTERVAL_MS,
      retryCapMs: config.EXPIRY_RETRY_MAX_MS,
      pollIntervalMs: config.SESSION_EXPIRY_INTERVAL_MS,
    });
    sessionExpiry.start();
    const backfill = dashboardBackfillWorker(deps, { batchSize: 500, retryMs: config.EXPIRY_INTERVAL_MS });
    backfill.start();
    return async () => {
      await backfill.stop();
      await sessionExpiry.stop();
      await expiry.stop();
      await Promise.all(subs.map((s) => s.stop()));
      payments.close();
      tax.close();
      providerCache.close();
    };
  },
});
