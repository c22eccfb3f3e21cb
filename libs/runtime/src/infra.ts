import { AuditingStore, Bus, OutboxRelay } from '@paymesh/bus';
import type { BaseConfig, Logger } from '@paymesh/core';
import { createStore, type CollectionSpec, type DocumentStore } from '@paymesh/store';
import { costCounters, reportCostCountersOnSignal } from './counters';
import { databaseName, type ServiceName } from './services';

export interface Infra {
  store: DocumentStore;
  bus: Bus;
  relay: OutboxRelay;
  /** Adds a gateway's HTTP requests in flight to its cost counters. */
  countHttpInFlight(read: () => number): void;
  close(): Promise<void>;
}

/** Raised when a dependency cannot be reached at start-up; the message says which and how to fix it. */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: 'datastore' | 'nats',
    message: string,
  ) {
    super(message);
    this.name = 'DependencyUnavailableError';
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Opens this service's datastore (its own database/schema), creates its collections, connects
 * the bus and starts the outbox relay.
 */
export async function openInfra(opts: {
  service: ServiceName;
  config: BaseConfig;
  logger: Logger;
  collections: CollectionSpec[];
}): Promise<Infra> {
  const { config, logger } = opts;
  let store: DocumentStore;
  try {
    store = await createStore({
      url: config.STORE_URL,
      database: databaseName(config.STORE_NAMESPACE, opts.service),
      logger,
      maxConnections: config.STORE_POOL_MAX,
      markDelayMs: config.OUTBOX_MARK_DELAY_MS,
    });
    await store.ping();
    for (const c of opts.collections) await store.ensureCollection(c);
  } catch (err) {
    throw new DependencyUnavailableError(
      'datastore',
      `datastore unreachable at ${redact(config.STORE_URL)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  let bus: Bus;
  try {
    bus = await Bus.connect({
      url: config.NATS_URL,
      namespace: config.BUS_NAMESPACE,
      service: opts.service,
      logger,
      streamReplicas: config.BUS_STREAM_REPLICAS,
      streamLimits: { maxBytes: config.BUS_STREAM_MAX_BYTES },
    });
  } catch (err) {
    await store.close().catch(() => undefined);
    throw new DependencyUnavailableError(
      'nats',
      `NATS unreachable at ${redact(config.NATS_URL)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  // Commits hand their events to the relay at once and other replicas' commits wake it through
  // the outbox watch; the poll is the slow safety net for crashes and outages.
  const relay = new OutboxRelay({ outbox: store.outbox, bus, logger, intervalMs: config.OUTBOX_POLL_INTERVAL_MS });
  // Writes of the collections declared `audit` record who changed what, in the same transaction.
  const audited = new AuditingStore(store, { service: opts.service, collections: opts.collections });
  audited.attachRelay(relay);
  relay.companions = (events) => audited.withAudit(events);
  store = audited;
  relay.start();
  let httpInFlight: (() => number) | undefined;
  const stopReporting = reportCostCountersOnSignal(logger, () => costCounters({ store, bus, relay }, httpInFlight));
  return {
    store,
    bus,
    relay,
    countHttpInFlight(read) {
      httpInFlight = read;
    },
    async close() {
      stopReporting();
      // Benchmarks sum this line over the services to count statements per flow.
      logger.info({ storeStats: store.stats() }, 'store statements');
      await relay.stop().catch(() => undefined);
      await bus.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    },
  };
}
