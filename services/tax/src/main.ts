import '@paymesh/telemetry/register';
import { systemClock } from '@paymesh/core';
import { runBackendService } from '@paymesh/runtime';
import { createVatIdChecker } from './app/check-vat-id';
import { config } from './config';
import { startConsumers } from './events/consumers';
import { registerTaxService } from './grpc/server';
import { EcbRatesFetcher } from './jobs/ecb-rates-fetcher';
import { RebuildWorker } from './jobs/rebuild-worker';
import { RateBookCache } from './app/rate-book-cache';
import { collections } from './store/collections';
import { ViesClient } from './vies/client';

void runBackendService({
  name: 'tax',
  config,
  collections,
  async setup({ grpc, logger, store, bus }) {
    const vies = new ViesClient({
      baseUrl: config.VIES_URL,
      deadlineMs: config.VIES_DEADLINE_MS,
      breakerMs: config.VIES_BREAKER_SECONDS * 1000,
      logger: logger.child({ component: 'vies' }),
    });
    logger.info({ viesUrl: config.VIES_URL }, 'VIES client ready');
    const vatIds = createVatIdChecker({
      store,
      clock: systemClock,
      logger,
      vies,
      cacheTtlSeconds: config.VIES_CACHE_TTL_SECONDS,
    });
    const rateBooks = new RateBookCache({ ttlMs: config.TAX_RATE_BOOK_CACHE_TTL_MS });
    const deps = { store, clock: systemClock, logger, vatIds, rateBooks, ossFlagTtlMs: config.TAX_OSS_FLAG_TTL_MS };
    const rebuilds = new RebuildWorker(deps, {
      pollIntervalMs: config.LEDGER_REBUILD_POLL_MS,
      leaseMs: config.LEDGER_REBUILD_LEASE_MS,
      batchSize: 100,
    });
    const ecbRates = new EcbRatesFetcher(deps, {
      url: config.ECB_RATES_URL,
      intervalMs: config.ECB_RATES_INTERVAL_MS,
      deadlineMs: config.ECB_RATES_DEADLINE_MS,
    });
    registerTaxService(grpc, deps, rebuilds);
    const subs = await startConsumers(bus, deps);
    rebuilds.start();
    if (config.ECB_RATES_INTERVAL_MS > 0) ecbRates.start();
    logger.info(
      { ecbRatesUrl: config.ECB_RATES_URL, intervalMs: config.ECB_RATES_INTERVAL_MS },
      config.ECB_RATES_INTERVAL_MS > 0
        ? 'ECB rates fetcher started'
        : 'ECB rates fetcher off (ECB_RATES_INTERVAL_MS=0)',
    );
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
      await rebuilds.stop();
      await ecbRates.stop();
    };
  },
});
