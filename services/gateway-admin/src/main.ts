import '@paymesh/telemetry/register';
import { createLogger, systemClock } from '@paymesh/core';
import { DependencyUnavailableError, exitWithParent, openInfra, type BackendService } from '@paymesh/runtime';
import { stopTelemetry } from '@paymesh/telemetry';
import type { DependencyCheck } from '@paymesh/http';
import { config, DOWNSTREAM, resolveJwtKey } from './config';
import { createClients } from './clients';
import { collections } from './store/collections';
import { buildAdminServer } from './http/server';
import { allRoutes } from './http/routes';
import { ensureSystemKey } from './app/system-key';
import type { AdminDeps } from './app/deps';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'gateway-admin', level: config.LOG_LEVEL });
  let infra;
  try {
    infra = await openInfra({ service: 'gateway-admin', config, logger, collections });
  } catch (err) {
    if (err instanceof DependencyUnavailableError) {
      logger.fatal({ dependency: err.dependency }, err.message);
      process.exit(2);
    }
    throw err;
  }
  const clients = createClients(config);
  const deps: AdminDeps = {
    store: infra.store,
    relay: infra.relay,
    clock: systemClock,
    logger,
    clients,
    auth: {
      jwtKey: resolveJwtKey(config),
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
      challengeTtlSeconds: config.WEBAUTHN_CHALLENGE_TTL_SECONDS,
      enrollmentTtlSeconds: config.ENROLLMENT_TTL_SECONDS,
      rpId: config.WEBAUTHN_RP_ID,
      rpName: config.WEBAUTHN_RP_NAME,
      origins: config.WEBAUTHN_ORIGINS,
      cookieSecure: config.AUTH_COOKIE_SECURE,
    },
  };
  if (config.SYSTEM_API_KEY) await ensureSystemKey(deps, config.SYSTEM_API_KEY);

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
      (s: BackendService): DependencyCheck => ({
        name: s,
        critical: false,
        check: async () => {
          if (!(await clients.health(s))) throw new Error(`not serving at ${clients.addresses[s]}`);
        },
      }),
    ),
  ];

  const app = await buildAdminServer({
    deps,
    routes: allRoutes(config),
    logger,
    docs: config.API_DOCS_ENABLED,
    bodyLimit: config.BODY_LIMIT_BYTES,
    healthChecks,
    rateLimit: { config, namespace: `${config.STORE_NAMESPACE}:gateway-admin` },
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ url: `http://${config.HOST}:${config.PORT}/api/v1` }, 'gateway-admin ready');

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
