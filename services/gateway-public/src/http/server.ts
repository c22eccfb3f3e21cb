import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import type { Logger } from '@paymesh/core';
import type { Clients } from '../clients';
import { registerHookRoutes } from './routes/hooks';
import { buyerCorsOptions, type OriginAllowList } from './cors';
import { rpc } from '../clients';
import {
  errorEnvelopePlugin,
  genRequestId,
  rateLimitPlugin,
  registerHealthRoutes,
  requestContextPlugin,
  type DependencyCheck,
  type RateLimitConfig,
} from '@paymesh/http';

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
}

/** The Origin allow-list as checkout applies it, for CORS. */
function originAllowList(clients: Clients, mainFrontendOrigin: string): OriginAllowList {
  const cp = clients.checkoutPayments;
  return {
    mainFrontendOrigin,
    sessionAllows: async (sessionPublicId, browserOrigin) => {
      await rpc(cp, cp.getPublicCheckout, { sessionPublicId, browserOrigin }, clients.deadlineMs);
      return true;
    },
    transactionAllows: async (transactionId, browserOrigin) => {
      await rpc(cp, cp.getTransactionStatus, { transactionId, browserOrigin, sessionPublicId: '' }, clients.deadlineMs);
      return true;
    },
  };
}

/** Builds the Main Backend: buyer-facing /api/v1 routes, provider webhooks under /hooks, health. */
export async function buildPublicServer(opts: PublicServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: genRequestId,
    bodyLimit: opts.bodyLimit,
    trustProxy: opts.trustProxy ?? false,
  });
  await app.register(requestContextPlugin);
  await app.register(errorEnvelopePlugin);
  if (opts.rateLimit) {
    await app.register(rateLimitPlugin, {
      ...opts.rateLimit,
      logger: opts.logger,
      // Single-use handoff tokens and the buyer portal (sign-in, OTP): a stricter budget per buyer and route.
      sensitiveRoutes: [/^\/api\/v1\/checkouts\/:id\/handoff\/:token\/consume$/, /^\/api\/v1\/portal(\/|$)/],
    });
  }
  registerHealthRoutes(app, 'gateway-public', opts.healthChecks);
  await registerHookRoutes(app, opts.clients);
  await app.register(
    async (scope) => {
      // Inside the /api/v1 scope: provider webhooks and health get no CORS headers.
      await scope.register(cors, buyerCorsOptions(originAllowList(opts.clients, opts.mainFrontendOrigin ?? '')));
      for (const register of opts.apiRoutes ?? []) register(scope);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
