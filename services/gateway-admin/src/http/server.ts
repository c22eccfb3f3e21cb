import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from '@paymesh/core';
import {
  idempotencyPlugin,
  markOptionalBody,
  openApiOptionalBodies,
  rateLimitPlugin,
  registerHealthRoutes,
  registerRows,
  type DependencyCheck,
  type IdempotencyPluginOptions,
  type RateLimitConfig,
  createGatewayApp,
} from '@paymesh/http';
import type { AdminDeps } from '../app/deps';
import { registerAuthRoutes } from './auth-routes';
import { registerDashboardApp, type DashboardApp } from './dashboard-app';
import { REFRESH_COOKIE } from '../domain/session';
import { rateLimitClient } from './caller';
import { documentAdminIdempotency, withIdempotencyAnswers } from './idempotency';
import { openApiComponents, openApiTransform } from './openapi';
import type { AnyRoute, OrgScope } from './route-table';
import { adminGuard } from './enforce';

export interface AdminServerOptions {
  deps: AdminDeps;
  routes: AnyRoute[];
  logger: Logger;
  docs: boolean;
  bodyLimit: number;
  healthChecks: () => DependencyCheck[];
  /** Reverse proxies to believe for the client address (see TRUST_PROXY). */
  trustProxy?: boolean | string;
  /** Absent: no rate limiting (in-process tests of single routes). */
  rateLimit?: { config: RateLimitConfig; namespace: string };
  /** Idempotency-Key on the keyed rows (see idempotency.ts); absent: the header is ignored. */
  idempotency?: IdempotencyPluginOptions;
  /** The dashboard's build, served at `/` and `/app/*`; absent: the API only. */
  dashboard?: DashboardApp | null;
}

export const API_PREFIX = '/api/v1';
/** Short alias; the default reverse proxy rewrites /v1/* to /api/v1/*, and we answer it directly too. */
export const ALIAS_PREFIX = '/v1';

/** Builds the Admin API: /api/v1 (documented), the /v1 alias, health endpoints and docs. */
export async function buildAdminServer(opts: AdminServerOptions): Promise<FastifyInstance> {
  const app = await createGatewayApp(opts);
  // CSV files (data import): read as bytes up to the route's bodyLimit; the route checks the encoding.
  app.addContentTypeParser('text/csv', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  await app.register(cookie);
  if (opts.rateLimit) {
    await app.register(rateLimitPlugin, {
      config: opts.rateLimit.config,
      namespace: opts.rateLimit.namespace,
      logger: opts.logger,
      clientId: (req) => rateLimitClient(opts.deps, req),
      // Sign-in and token refresh: a stricter budget per caller and route.
      sensitiveRoutes: [/^\/(api\/)?v1\/auth(\/authenticate-complete|\/refresh-token)?$/],
    });
  }
  registerHealthRoutes(app, 'gateway-admin', opts.healthChecks);
  if (opts.idempotency) await app.register(idempotencyPlugin, opts.idempotency);
  const keyed = opts.idempotency ? opts.routes.map(withIdempotencyAnswers) : opts.routes;
  // Every row of the table is guarded alike: its scope, role and audience, enforced before its body is read.
  const routes = keyed.map((def) => ({ ...def, guard: adminGuard }));

  if (opts.docs) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Paymesh Admin API',
          version: '1.0.0',
          description: 'Merchant and operator integration surface. Every route names its scope and minimum role.',
        },
        servers: [{ url: '/' }],
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              description: 'API key sk_live_<keyId>.<secret> / sk_test_... or dashboard JWT',
            },
            refreshCookie: {
              type: 'apiKey',
              in: 'cookie',
              name: REFRESH_COOKIE,
              description: 'HTTP-only refresh cookie of a dashboard session (set by completeSignIn)',
            },
          },
        },
      },
      transform: opts.idempotency
        ? documentAdminIdempotency(openApiTransform, opts.idempotency.operations)
        : openApiTransform,
      transformObject: (input) => openApiOptionalBodies(openApiComponents(input)),
    });
    await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs` });
    // The documented address of the interactive description; swagger-ui serves it at docs/.
    app.get(`${API_PREFIX}/docs/index.html`, { schema: { hide: true } }, (_req, reply) =>
      reply.redirect(`${API_PREFIX}/docs/`),
    );
  }
  if (opts.dashboard) await registerDashboardApp(app, opts.dashboard);
  await app.register(
    async (scope) => {
      // A write whose body schema accepts {} (every field optional) or that reads no body takes an absent one.
      scope.addHook('onRoute', markOptionalBody);
      registerAuthRoutes(scope, opts.deps, false);
      registerRows(scope, routes, { deps: opts.deps, input: 'schema' });
    },
    { prefix: API_PREFIX },
  );
  await app.register(
    async (scope) => {
      scope.addHook('onRoute', markOptionalBody);
      registerAuthRoutes(scope, opts.deps, true);
      registerRows(scope, routes, { deps: opts.deps, input: 'schema', hidden: true });
    },
    { prefix: ALIAS_PREFIX },
  );
  return app;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: import('../domain/principal').Principal;
    orgScope?: OrgScope | undefined;
  }
}
