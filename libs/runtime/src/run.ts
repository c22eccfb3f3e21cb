import { createLogger, type BaseConfig, type Logger } from '@paymesh/core';
import { GrpcServer, setGrpcSecurity } from '@paymesh/grpc';
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
 * Starts a backend service: datastore, bus, outbox relay, gRPC server with health, then the
 * service's own wiring. SIGTERM/SIGINT stop it gracefully (in-flight calls finish, consumers
 * drain, pending events stay in the outbox for the next start).
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
    logger.info({ signal }, 'shutting down');
    if (beforeStop) await beforeStop().catch((err: unknown) => logger.error({ err }, 'shutdown hook failed'));
    await grpc.shutdown();
    await infra.close();
    await stopTelemetry();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  exitWithParent(opts.config.EXIT_WITH_PARENT, logger, (reason) => void stop(reason));
}
