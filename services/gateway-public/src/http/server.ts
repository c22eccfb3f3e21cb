import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from '@paymesh/core';
import type { Clients } from '../clients';
import { registerHookRoutes } from './routes/hooks';
import { buyerCorsOptions, type OriginAllowList } from './cors';
import { rpc } from '../clients';
import { publicCheckoutFor } from './public-checkout';
import {
  idempotencyPlugin,
  markOptionalBody,
  openApiOptionalBodies,
  rateLimitPlugin,
  registerHealthRoutes,
  type DependencyCheck,
  type IdempotencyPluginOptions,
  openApiFiles,
  openApiTransform,
  type RateLimitConfig,
  createGatewayApp,
} from '@paymesh/http';
import { PUBLIC_ERROR_DESCRIPTIONS } from './responses';
import { PORTAL_REFRESH_COOKIE } from './routes/portal';
import { registerPages, type WebPages } from './pages';
import { documentPublicIdempotency } from './idempotency';

export interface PublicServerOptions {
  logger: Logger;
  bodyLimit: number;
  healthChecks: () => DependencyCheck[];
  /** Reverse proxies to believe for the client address (see TRUST_PROXY). */
  trustProxy?: boolean | string;
  clients: Clients;
  /** Buyer-facing callers are anonymous: every client is counted by IP address. */
  rateLimit?: { config: RateLimitConfig; namespace: string };
  /** Origin of the hosted checkout, always allowed (MAIN_FRONTEND_ORIGIN); unset = none. */
  mainFrontendOrigin?: string;
  /** Registrars of the buyer-facing routes, mounted under /api/v1. */
  apiRoutes?: ((app: FastifyInstance) => void)[];
  /** The buyer pages (hosted checkout at /c/:id, assets at /assets/); unset = API only. */
  pages?: WebPages;
  /** Told every route as it is added (tests enumerate the served routes with it); `optionalBody`: the route takes an absent body. */
  onRoute?: (route: { method: string | string[]; url: string; optionalBody: boolean }) => void;
  /** Idempotency-Key on transaction and billing-request create (see idempotency.ts); absent: the header is ignored. */
  idempotency?: IdempotencyPluginOptions;
}

const documented = openApiTransform(PUBLIC_ERROR_DESCRIPTIONS);

/**
 * Error descriptions and file answers; a route outside the tables (health, the buyer pages) takes
 * no credentials (each row names its own security by its guard).
 */
const publicTransform: ReturnType<typeof openApiTransform> = openApiFiles((input) => {
  const out = documented(input);
  const schema = out.schema as { security?: unknown } | undefined;
  if (schema && schema.security === undefined) schema.security = [];
  return out;
});

/** The Origin allow-list as checkout applies it, for CORS. */
function originAllowList(clients: Clients, mainFrontendOrigin: string): OriginAllowList {
  const cp = clients.checkoutPayments;
  return {
    mainFrontendOrigin,
    sessionAllows: async (sessionPublicId, browserOrigin, req) => {
      await publicCheckoutFor(req, clients, sessionPublicId, browserOrigin);
      return true;
    },
    transactionAllows: async (transactionId, browserOrigin) => {
      await rpc(cp, cp.getTransactionStatus, { transactionId, browserOrigin, sessionPublicId: '' }, clients.deadlineMs);
      return true;
    },
  };
}

/** Builds the Main Backend: buyer-facing /api/v1 routes, provider webhooks under /hooks, health, and the buyer pages. */
export async function buildPublicServer(opts: PublicServerOptions): Promise<FastifyInstance> {
  const app = await createGatewayApp(opts);
  // A buyer-facing write whose body schema accepts {} (every field optional) or that reads no body
  // takes an absent one; provider webhooks (/hooks) always need theirs.
  app.addHook('onRoute', (r) => {
    if (r.url.startsWith('/api/v1/')) markOptionalBody(r);
  });
  const { onRoute } = opts;
  if (onRoute)
    app.addHook('onRoute', (r) =>
      onRoute({ method: r.method, url: r.url, optionalBody: r.config?.optionalBody === true }),
    );
  // The audit trail's actor and operation of every change a request causes: a provider's webhook,
  // else a buyer (anonymous at checkout, the checkout session when the path names it; the portal's
  // routes name the signed-in buyer once authenticated).
  app.addHook('onRequest', async (req) => {
    const ctx = req.requestContext;
    if (!ctx) return;
    const operationId = (req.routeOptions.schema as { operationId?: unknown } | undefined)?.operationId;
    if (typeof operationId === 'string') ctx.operation = operationId;
    const params = (req.params ?? {}) as Record<string, unknown>;
    const param = (name: string) => (typeof params[name] === 'string' ? params[name].slice(0, 128) : undefined);
    const provider = req.url.startsWith('/hooks/') ? param('type') : undefined;
    const session = param('sessionPublicId');
    ctx.actor = provider
      ? { type: 'provider', id: `${provider}/${param('providerId') ?? ''}` }
      : { type: 'buyer', id: session ? `checkout:${session}` : 'anonymous' };
  });
  // A buyer naming the checkout session in the body (transactions/create) is named by it too.
  app.addHook('preHandler', async (req) => {
    const ctx = req.requestContext;
    if (ctx?.actor?.type !== 'buyer' || ctx.actor.id !== 'anonymous') return;
    const body = req.body as { sessionPublicId?: unknown } | undefined;
    const session = typeof body === 'object' && body !== null ? body.sessionPublicId : undefined;
    if (typeof session === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(session))
      ctx.actor = { type: 'buyer', id: `checkout:${session}` };
  });
  // The buyer portal's refresh cookie.
  await app.register(cookie);
  if (opts.rateLimit) {
    await app.register(rateLimitPlugin, {
      ...opts.rateLimit,
      logger: opts.logger,
      // Single-use handoff tokens and the buyer portal (sign-in, OTP): a stricter budget per buyer and route.
      sensitiveRoutes: [/^\/api\/v1\/checkouts\/:id\/handoff\/:token\/consume$/, /^\/api\/v1\/portal(\/|$)/],
    });
  }
  registerHealthRoutes(app, 'gateway-public', opts.healthChecks);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Paymesh Main Backend',
        version: '1.0.0',
        description:
          'Buyer-facing checkout and transaction routes (no credentials; browsers need an allowed Origin) and provider webhook intake.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          portalSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'Portal session token (verify-otp, magic-link or refresh)',
          },
          portalRefreshCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: PORTAL_REFRESH_COOKIE,
            description: 'HTTP-only portal refresh cookie',
          },
        },
      },
    },
    transform: documentPublicIdempotency(publicTransform),
    transformObject: (input) =>
      openApiOptionalBodies('openapiObject' in input ? input.openapiObject : input.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/api/v1/docs' });
  await registerHookRoutes(app, opts.clients);
  if (opts.pages) await registerPages(app, opts.pages);
  await app.register(
    async (scope) => {
      // Inside the /api/v1 scope: provider webhooks and health get no CORS headers.
      await scope.register(cors, buyerCorsOptions(originAllowList(opts.clients, opts.mainFrontendOrigin ?? '')));
      // After CORS: a replayed answer carries the CORS headers too.
      if (opts.idempotency) await scope.register(idempotencyPlugin, opts.idempotency);
      for (const register of opts.apiRoutes ?? []) register(scope);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
