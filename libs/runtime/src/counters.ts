import type { Bus, BusStats, OutboxRelay } from '@paymesh/bus';
import { backgroundInFlight, type Logger } from '@paymesh/core';
import { grpcCallsServing, grpcStats, type GrpcStats } from '@paymesh/grpc';
import type { DocumentStore, StoreStats } from '@paymesh/store';

/**
 * What this process did since it started (store, gRPC, JetStream) and what it is doing now; the
 * cost budget test (test/mesh/cost-budget.test.ts) reads it between flows.
 */
export interface CostCounters {
  store: StoreStats;
  grpc: GrpcStats;
  /** Inbound gRPC calls being answered now. */
  grpcServing: number;
  bus: BusStats;
  relay: { published: number; busy: boolean };
  /** Background tasks running now (`trackBackground` of @paymesh/core: work-loop passes, deliveries, cleanups). */
  background: number;
  /** HTTP requests a gateway is answering now (gateways only). */
  httpInFlight?: number;
}

/** This process's counters now. */
export function costCounters(
  infra: { store: DocumentStore; bus: Bus; relay: OutboxRelay },
  httpInFlight?: () => number,
): CostCounters {
  const relay = infra.relay.health();
  return {
    ...(httpInFlight ? { httpInFlight: httpInFlight() } : {}),
    store: infra.store.stats(),
    grpc: grpcStats(),
    grpcServing: grpcCallsServing(),
    bus: infra.bus.stats(),
    relay: { published: relay.published, busy: relay.busy },
    background: backgroundInFlight(),
  };
}

/** The signal that makes a service log its counters (`kill -USR2 <pid>`). */
export const COST_COUNTERS_SIGNAL = 'SIGUSR2';

/**
 * Logs the counters (`"cost counters"`, field `costCounters`) whenever the process gets
 * {@link COST_COUNTERS_SIGNAL}: reading them costs no statement, call or message of its own. The
 * line is asked for, so it is written whatever `LOG_LEVEL` says (`pnpm bench` runs the services at
 * `warn`). Returns the function that stops listening.
 */
export function reportCostCountersOnSignal(logger: Logger, read: () => CostCounters): () => void {
  const out = logger.child({}, { level: 'info' });
  const report = (): void => out.info({ costCounters: read() }, 'cost counters');
  process.on(COST_COUNTERS_SIGNAL, report);
  return () => process.off(COST_COUNTERS_SIGNAL, report);
}
