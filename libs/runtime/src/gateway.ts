import { createLogger, exitWithParent, type BaseConfig, type Logger } from '@paymesh/core';
import { checkHealth } from '@paymesh/grpc';
import type { CollectionSpec } from '@paymesh/store';
import { stopTelemetry } from '@paymesh/telemetry';
import { downstreamAddr, type DownstreamAddrs, type GrpcSecurityConfig } from './config';
import { applyGrpcSecurity, stopDeadline } from './run';
import { DependencyUnavailableError, openInfra, type Infra } from './infra';
import { BACKEND_SERVICES, type BackendService } from './services';

/** A deep-health check (structurally the `DependencyCheck` of @paymesh/http). */
export interface HealthCheck {
  name: string;
  critical: boolean;
  check: () => Promise<void>;
}

/**
 * The deep-health checks of a gateway: its datastore (critical), NATS and every backend service's
 * gRPC health (reported, not critical).
 */
export function meshHealthChecks(infra: Infra, config: DownstreamAddrs): HealthCheck[] {
  const backends = Object.keys(BACKEND_SERVICES) as BackendService[];
  return [
    { name: 'datastore', critical: true, check: () => infra.store.ping() },
    {
      name: 'nats',
      critical: false,
      check: async () => {
        if (!infra.bus.health().connected) throw new Error('not connected');
      },
    },
    ...backends.map((s): HealthCheck => ({
      name: s,
      critical: false,
      check: async () => {
        const addr = downstreamAddr(config, s);
        if (!(await checkHealth(addr))) throw new Error(`not serving at ${addr}`);
      },
    })),
  ];
}

/** The HTTP server a gateway builds (a fastify instance with the httpDrainPlugin of @paymesh/http). */
export interface HttpApp {
  listen(opts: { host: string; port: number }): Promise<unknown>;
  close(): Promise<unknown>;
  httpDrain: {
    readonly inFlight: number;
    drain(ms: number): Promise<{ openConnections: number; waitedMs: number }>;
  };
}

type GatewayConfig = BaseConfig &
  DownstreamAddrs &
  GrpcSecurityConfig & { HOST: string; PORT: number; HTTP_DRAIN_MS: number };

export interface GatewayOptions<C extends GatewayConfig> {
  name: 'gateway-admin' | 'gateway-public';
  config: C;
  collections: CollectionSpec[];
  /** Builds the HTTP app; `close` runs after the app stopped accepting requests. */
  setup(ctx: {
    infra: Infra;
    logger: Logger;
    healthChecks: () => HealthCheck[];
  }): Promise<{ app: HttpApp; close?: () => void | Promise<void> }>;
}

/**
 * Starts a gateway: datastore, bus and outbox relay, then its HTTP app. SIGTERM/SIGINT (or the
 * supervisor going away) stop it gracefully: for HTTP_DRAIN_MS it keeps answering, each answer
 * closing its connection, and its readiness check (`/internal/health`) fails; then it stops
 * listening, finishes the requests in flight (cut off after SHUTDOWN_TIMEOUT_MS), and closes.
 */
export async function runGateway<C extends GatewayConfig>(opts: GatewayOptions<C>): Promise<void> {
  const { config } = opts;
  const logger = createLogger({ service: opts.name, level: config.LOG_LEVEL });
  applyGrpcSecurity(config, logger);
  let infra: Infra;
  try {
    infra = await openInfra({ service: opts.name, config, logger, collections: opts.collections });
  } catch (err) {
    if (err instanceof DependencyUnavailableError) {
      logger.fatal({ dependency: err.dependency }, err.message);
      process.exit(2);
    }
    throw err;
  }
  let stopping = false;
  const stoppingCheck: HealthCheck = {
    name: 'shutdown',
    critical: true,
    check: async () => {
      if (stopping) throw new Error('stopping: draining connections');
    },
  };
  const { app, close } = await opts.setup({
    infra,
    logger,
    healthChecks: () => [stoppingCheck, ...meshHealthChecks(infra, config)],
  });
  infra.countHttpInFlight(() => app.httpDrain.inFlight);
  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: `http://${config.HOST}:${config.PORT}/api/v1` }, `${opts.name} ready`);

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    stopDeadline(logger, config.HTTP_DRAIN_MS + config.SHUTDOWN_TIMEOUT_MS + 5_000);
    logger.info({ signal, httpInFlight: app.httpDrain.inFlight }, 'shutting down');
    const drained = await app.httpDrain.drain(config.HTTP_DRAIN_MS);
    logger.info({ ...drained, httpInFlight: app.httpDrain.inFlight }, 'HTTP drained; closing the listener');
    // Waits for the requests in flight; stragglers on open connections are still answered.
    let cutOff: NodeJS.Timeout | undefined;
    await Promise.race([
      app.close().catch(() => undefined),
      new Promise<void>((resolve) => {
        cutOff = setTimeout(resolve, config.SHUTDOWN_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(cutOff);
    await close?.();
    await infra.close();
    await stopTelemetry();
    logger.info({ ms: Date.now() - started, httpInFlight: app.httpDrain.inFlight }, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  exitWithParent(config.EXIT_WITH_PARENT, logger, (reason) => void stop(reason));
}
