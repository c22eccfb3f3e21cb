import '@paymesh/telemetry/register';
import { runGateway } from '@paymesh/runtime';
import { config } from './config';
import { collections } from './store/collections';
import { buildPublicServer } from './http/server';
import { createClients } from './clients';
import { publicApiRoutes } from './http/routes';
import { loadWebPages } from './http/pages';

void runGateway({
  name: 'gateway-public',
  config,
  collections,
  async setup({ logger, healthChecks }) {
    const clients = createClients(config);
    const routeOptions = { clients, mainFrontendOrigin: config.MAIN_FRONTEND_ORIGIN };
    const app = await buildPublicServer({
      logger,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthChecks,
      trustProxy: config.TRUST_PROXY,
      clients,
      mainFrontendOrigin: config.MAIN_FRONTEND_ORIGIN,
      rateLimit: { config, namespace: `${config.STORE_NAMESPACE}:gateway-public` },
      apiRoutes: publicApiRoutes(routeOptions),
      pages: loadWebPages(),
    });
    return { app, close: () => clients.close() };
  },
});
