import { backgroundInFlight, createLogger, type BaseConfig, type Logger } from '@paymesh/core';
import { GrpcServer, grpcCallsServing, setGrpcSecurity } from '@paymesh/grpc';
import type { CollectionSpec } from '@paymesh/store';
import { stopTelemetry } from '@paymesh/telemetry';
import { DependencyUnavailableError, openInfra, type Infra } from './infra';
import { exitWithParent } from '@paymesh/core';
import type { BackendService } from './services';
import { resolveGrpcSecurity, type GrpcSecurityConfig } from './config';

/** Sets this process's gRPC security from its config, or stops it with the reason (exit code 1). */
export function applyGrpcSecurity(config: GrpcSecurityConfig, logger: Logger): void {
  try {
    setGrpcSecurity(resolveGrpcSecurity(config, logger));
  } catch (err) {
    logger.fatal(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}

export interface ServiceContext extends Infra {
  logger: Logger;
  grpc: GrpcServer;
}

export interface BackendServiceOptions<
  C extends BaseConfig &
    GrpcSecurityConfig & { GRPC_HOST: string; GRPC_PORT: number; GRPC_HEALTH_PORT?: number | undefined },
> {
  name: BackendService;
  config: C;
  collections: CollectionSpec[];
  /** Registers gRPC services and event consumers; may return a hook run first on shutdown. */
  setup(ctx: ServiceContext): Promise<void | (() => Promise<void>)>;
}

/**
 * Ends the process with exit code 1 if a graceful stop has not finished within `ms` (a stuck
 * call or handler must not keep a replica half-stopped until the orchestrator kills it).
 */
export function stopDeadline(logger: Logger, ms: number): void {
  setTimeout(() => {
    logger.error({ afterMs: ms }, 'graceful stop did not finish in time; exiting');
    process.exit(1);
  }, ms).unref();
}

/**
 * Starts a backend service: datastore, bus, outbox relay, gRPC server with health, then the
 * service's own wiring. SIGTERM/SIGINT stop it gracefully: the gRPC server stops taking calls
 * (its clients reconnect to another replica) and lets the calls in flight finish, then the
 * service's hook stops its consumers (they fetch no more; received events are handled and
 * acknowledged) and background work, then the outbox relay, bus and datastore close. Events not
 * yet relayed stay in the outbox for the other replicas' relays. Calls still running after
 * SHUTDOWN_TIMEOUT_MS are cut off.
 */
export async function runBackendService<
  C extends BaseConfig &
    GrpcSecurityConfig & { GRPC_HOST: string; GRPC_PORT: number; GRPC_HEALTH_PORT?: number | undefined },
>(opts: BackendServiceOptions<C>): Promise<void> {
  const logger = createLogger({ service: opts.name, level: opts.config.LOG_LEVEL });
  applyGrpcSecurity(opts.config, logger);
  let infra: Infra;
  try {
    infra = await openInfra({ service: opts.name, config: opts.config, logger, collections: opts.collections });
  } catch (err) {
    if (err instanceof DependencyUnavailableError) {
      logger.fatal({ dependency: err.dependency }, err.message);
      process.exit(2);
    }
    throw err;
  }
  const grpc = new GrpcServer(logger, opts.name, async () => {
    await infra.store.ping();
    return true;
  });
  const beforeStop = await opts.setup({ ...infra, logger, grpc });
  const port = await grpc.listen(`${opts.config.GRPC_HOST}:${opts.config.GRPC_PORT}`);
  if (opts.config.GRPC_HEALTH_PORT)
    await grpc.listenHealthOnly(`${opts.config.GRPC_HOST}:${opts.config.GRPC_HEALTH_PORT}`);
  logger.info({ port }, `${opts.name} ready`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    const timeoutMs = opts.config.SHUTDOWN_TIMEOUT_MS;
    stopDeadline(logger, timeoutMs + 5_000);
    logger.info(
      {
        signal,
        grpcCallsInFlight: grpcCallsServing(),
        eventsInFlight: infra.bus.stats().handling,
        backgroundInFlight: backgroundInFlight(),
      },
      'shutting down',
    );
    // Calls first: their handlers may still need the consumers' and the hook's clients.
    await grpc.shutdown(timeoutMs);
    if (beforeStop) await beforeStop().catch((err: unknown) => logger.error({ err }, 'shutdown hook failed'));
    await infra.close();
    await stopTelemetry();
    logger.info({ ms: Date.now() - started, grpcCallsInFlight: grpcCallsServing() }, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  exitWithParent(opts.config.EXIT_WITH_PARENT, logger, (reason) => void stop(reason));
}
