import '@paymesh/telemetry/register';
import { runGateway } from '@paymesh/runtime';
import { resolveKeyring, resolvePortalKey, systemClock } from '@paymesh/core';
import { config } from './config';
import { collections } from './store/collections';
import { buildPublicServer } from './http/server';
import { publicIdempotency } from './http/idempotency';
import { createClients } from './clients';
import { publicApiRoutes } from './http/routes';
import { loadWebPages } from './http/pages';

void runGateway({
  name: 'gateway-public',
  config,
  collections,
  async setup({ infra, logger, healthChecks }) {
    const clients = createClients(config);
    const portal = {
      store: infra.store,
      clock: systemClock,
      logger,
      clients,
      settings: {
        enabled: config.PORTAL_ENABLED,
        magicLinksEnabled: config.PORTAL_MAGIC_LINKS_ENABLED,
        linkKey: resolvePortalKey(config, 'PORTAL_LINK_SECRET', config.PORTAL_LINK_SECRET),
        otpKey: resolvePortalKey(config, 'PORTAL_OTP_SECRET', config.PORTAL_OTP_SECRET),
        otpTtlSeconds: config.PORTAL_OTP_TTL_SECONDS,
        otpMaxAttempts: config.PORTAL_OTP_MAX_ATTEMPTS,
        otpRequestsPerEmail: config.PORTAL_OTP_REQUESTS_PER_EMAIL,
        otpRequestWindowSeconds: config.PORTAL_OTP_REQUEST_WINDOW_SECONDS,
        sessionTtlSeconds: config.PORTAL_SESSION_TTL_SECONDS,
        refreshTtlSeconds: config.PORTAL_REFRESH_TTL_SECONDS,
        mainFrontendOrigin: config.MAIN_FRONTEND_ORIGIN,
        cookieSecure: config.NODE_ENV !== 'development',
        documentsDeadlineMs: config.PORTAL_DOCUMENTS_DEADLINE_MS,
      },
    };
    const routeOptions = { clients, mainFrontendOrigin: config.MAIN_FRONTEND_ORIGIN, portal };
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
      // A retry waits for a first request as long as its payment call may take.
      idempotency: publicIdempotency({
        store: infra.store,
        keyring: resolveKeyring(config),
        clock: systemClock,
        waitMs: Math.max(30_000, config.PAYMENT_CALL_DEADLINE_MS + 5_000),
      }),
    });
    return { app, close: () => clients.close() };
  },
});
