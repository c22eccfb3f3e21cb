import type { FastifyInstance, FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ValidationError, type Logger } from '@paymesh/core';
import {
  idempotencyPlugin,
  markOptionalBody,
  openApiOptionalBodies,
  rateLimitPlugin,
  registerHealthRoutes,
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
import { enforce } from './enforce';
import { documentAdminIdempotency, withIdempotencyAnswers } from './idempotency';
import { openApiComponents, openApiTransform, responseSchemas } from './openapi';
import { ErrorAnswer, fileAnswer, successStatus, type AnyRoute, type OrgScope } from './route-table';

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

function registerRoutes(app: FastifyInstance, deps: AdminDeps, routes: AnyRoute[], hidden: boolean): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const def of routes) {
    const status = successStatus(def);
    typed.route({
      method: def.method,
      url: def.path,
      schema: {
        hide: hidden,
        tags: [def.tag],
        operationId: def.operationId,
        summary: def.summary,
        description: `Scope \`${def.scope}\`, minimum role ${def.role}${def.audience === 'system' ? ', system API key only' : ''}.`,
        security: [{ bearerAuth: [] }],
        ...(def.body ? { body: def.body } : {}),
        ...(def.query ? { querystring: def.query } : {}),
        ...(def.params ? { params: def.params } : {}),
        ...(def.headers ? { headers: def.headers } : {}),
        response: responseSchemas(def),
        // A file answer is documented under its own media type (its error answers stay JSON).
      },
      // The OpenAPI transform documents a file answer and a file upload from it; a file upload always needs its body.
      config: {
        ...(def.file ? { file: def.file } : {}),
        ...(def.upload ? { upload: def.upload, optionalBody: false } : {}),
      },
      // A file upload may be larger than a JSON body.
      ...(def.upload ? { bodyLimit: def.upload.maxBytes } : {}),
      // Authentication and authorization run before validation: an unauthenticated caller learns nothing about the payload rules.
      onRequest: async (req) => {
        const { principal, org } = await enforce(deps, def, req);
        req.principal = principal;
        req.orgScope = org;
      },
      handler: async (req, reply) => {
        const principal = req.principal;
        if (!principal) throw new Error('route reached without a principal');
        if (def.upload && !Buffer.isBuffer(req.body))
          throw new ValidationError(`body: send the file with Content-Type ${def.upload.contentType}`);
        let result: unknown;
        try {
          result = await def.handler({
            deps,
            principal,
            org: req.orgScope ?? ({ organizationId: '', mode: 'live' } satisfies OrgScope),
            body: req.body,
            query: req.query,
            params: req.params,
            req,
            reply,
          });
        } catch (err) {
          if (err instanceof ErrorAnswer) return reply.status(err.status).send(err.body);
          throw err;
        }
        reply.status(status);
        // 204 has no body; an async handler returning undefined would never answer.
        if (status === 204) return reply.send();
        if (def.file) return sendFile(reply, def.file.contentType, result);
        return result;
      },
    });
  }
}

/**
 * Sends a file route's answer: bytes as they are (never serialized), or a stream piped as it is
 * read (chunked), offered inline under their name.
 */
function sendFile(reply: FastifyReply, contentType: string, answer: unknown): FastifyReply {
  const file = fileAnswer.parse(answer);
  const body = file.stream ?? file.bytes;
  if (!body || (file.stream && file.bytes)) throw new Error('a file answer has bytes or a stream, exactly one');
  for (const [name, value] of Object.entries(file.headers)) reply.header(name, value);
  return reply.type(contentType).header('content-disposition', `inline; filename="${file.filename}"`).send(body);
}

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
  const routes = opts.idempotency ? opts.routes.map(withIdempotencyAnswers) : opts.routes;

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
      registerRoutes(scope, opts.deps, routes, false);
    },
    { prefix: API_PREFIX },
  );
  await app.register(
    async (scope) => {
      scope.addHook('onRoute', markOptionalBody);
      registerAuthRoutes(scope, opts.deps, true);
      registerRoutes(scope, opts.deps, routes, true);
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
