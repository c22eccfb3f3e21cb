import '@paymesh/telemetry/register';
import { resolveKeyring, resolvePortalKey, systemClock } from '@paymesh/core';
import { Committer } from '@paymesh/bus';
import { AUDIT_RECORDED_SUBJECT, auditBatch, type AuditBatchData, type EventMap } from '@paymesh/contracts';
import { runGateway } from '@paymesh/runtime';
import { config, resolveJwtKey } from './config';
import { createClients } from './clients';
import { collections } from './store/collections';
import { buildAdminServer } from './http/server';
import { DASHBOARD_DIST, loadDashboardApp } from './http/dashboard-app';
import { adminIdempotency } from './http/idempotency';
import { allRoutes } from './http/routes';
import { ensureSystemKey } from './app/system-key';
import type { AdminDeps } from './app/deps';
import { auditProjector } from './app/audit-trail';

void runGateway({
  name: 'gateway-admin',
  config,
  collections,
  async setup({ infra, logger, healthChecks }) {
    const clients = createClients(config);
    const deps: AdminDeps = {
      store: infra.store,
      outbox: new Committer<EventMap>({ store: infra.store, relay: infra.relay }),
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
      portal: {
        enabled: config.PORTAL_ENABLED,
        magicLinksEnabled: config.PORTAL_MAGIC_LINKS_ENABLED,
        linkKey: resolvePortalKey(config, 'PORTAL_LINK_SECRET', config.PORTAL_LINK_SECRET),
        publicUrl: config.PORTAL_PUBLIC_URL,
        defaultTtlMinutes: config.PORTAL_MAGIC_LINK_TTL_MINUTES,
        maxTtlMinutes: config.PORTAL_MAGIC_LINK_MAX_TTL_MINUTES,
      },
    };
    if (config.SYSTEM_API_KEY) await ensureSystemKey(deps, config.SYSTEM_API_KEY);
    // The audit trail of every service, projected here once per event (GET /audit-events reads it).
    const projectAudit = auditProjector({ store: infra.store, logger });
    const auditTrail = await infra.bus.subscribe<AuditBatchData>({
      durable: 'audit-trail',
      maxDeliver: -1,
      subjects: AUDIT_RECORDED_SUBJECT,
      decode: (d) => auditBatch.parse(d),
      handler: (event) => projectAudit(event.id, event.data),
    });

    const routes = allRoutes(config);
    const dashboard = loadDashboardApp();
    if (!dashboard) logger.warn({ dist: DASHBOARD_DIST }, 'dashboard not built (pnpm build): serving the API only');
    const app = await buildAdminServer({
      deps,
      routes,
      logger,
      docs: config.API_DOCS_ENABLED,
      bodyLimit: config.BODY_LIMIT_BYTES,
      healthChecks,
      trustProxy: config.TRUST_PROXY,
      dashboard,
      rateLimit: { config, namespace: `${config.STORE_NAMESPACE}:gateway-admin` },
      idempotency: adminIdempotency({
        store: infra.store,
        keyring: resolveKeyring(config),
        routes,
        clock: systemClock,
      }),
    });
    return {
      app,
      close: async () => {
        await auditTrail.stop();
        clients.close();
      },
    };
  },
});
