import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '@paymesh/core';
import { errorEnvelopePlugin, genRequestId, registerHealthRoutes, requestContextPlugin, type DependencyCheck } from '@paymesh/http';

export interface PublicServerOptions {
  logger: Logger;
  bodyLimit: number;
  healthChecks: () => DependencyCheck[];
  /** Registrars of the buyer-facing routes, mounted under /api/v1. */
  apiRoutes?: ((app: FastifyInstance) => void)[];
}

/** Builds the Main Backend: buyer-facing /api/v1 routes, provider webhooks under /hooks, health. */
export async function buildPublicServer(opts: PublicServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    genReqId: genRequestId,
    bodyLimit: opts.bodyLimit,
  });
  await app.register(requestContextPlugin);
  await app.register(errorEnvelopePlugin);
  registerHealthRoutes(app, 'gateway-public', opts.healthChecks);
  await app.register(
    async (scope) => {
      for (const register of opts.apiRoutes ?? []) register(scope);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
