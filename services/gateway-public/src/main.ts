import '@paymesh/telemetry/register';
import { createLogger } from '@paymesh/core';
import { checkHealth } from '@paymesh/grpc';
import { DependencyUnavailableError, exitWithParent, downstreamAddr, openInfra } from '@paymesh/runtime';
import { stopTelemetry } from '@paymesh/telemetry';
import type { DependencyCheck } from '@paymesh/http';
import { config, DOWNSTREAM } from './config';
import { collections } from './store/collections';
import { buildPublicServer } from './http/server';
import { createClients } from './clients';
import { registerCheckoutRoutes } from './http/routes/checkouts';
import { registerTransactionRoutes } from './http/routes/transactions';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'gateway-public', level: config.LOG_LEVEL });
  let infra;
  try {
    infra = await openInfra({ service: 'gateway-public', config, logger, collections });
  } catch (err) {
    if (err instanceof DependencyUnavailableError) {
      logger.fatal({ dependency: err.dependency }, err.message);
      process.exit(2);
    }
    throw err;
  }
  const healthChecks = (): DependencyCheck[] => [
    { name: 'datastore', critical: true, check: () => infra.store.ping() },
    {
      name: 'nats',
      critical: false,
      check: async () => {
        if (!infra.bus.health().connected) throw new Error('not connected');
      },
    },
    ...DOWNSTREAM.map(
      (s): DependencyCheck => ({
        name: s,
        critical: false,
        check: async () => {
          const addr = downstreamAddr(config, s);
          if (!(await checkHealth(addr))) throw new Error(`not serving at ${addr}`);
        },
      }),
    ),
  ];
  const clients = createClients(config);
  const routeOptions = { clients, mainFrontendOrigin: config.MAIN_FRONTEND_ORIGIN };
  const app = await buildPublicServer({
    logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    healthChecks,
    clients,
    rateLimit: { config, namespace: `${config.STORE_NAMESPACE}:gateway-public` },
    apiRoutes: [(scope) => registerCheckoutRoutes(scope, routeOptions), (scope) => registerTransactionRoutes(scope, routeOptions)],
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: `http://${config.HOST}:${config.PORT}/api/v1` }, 'gateway-public ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close().catch(() => undefined);
    clients.close();
    await infra.close();
    await stopTelemetry();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  exitWithParent(config.EXIT_WITH_PARENT, logger, (reason) => void stop(reason));
}

void main();
