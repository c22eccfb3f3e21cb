import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { SandboxConfig } from './config';
import { faultBody, FAULTS, ViesFault } from './domain/faults';
import { ViesSandbox } from './domain/sandbox';
import { controlRoutes } from './http/controls';
import { restApiRoutes } from './http/rest-api';

/** Where the live service serves its REST API; the sandbox uses the same path. */
export const REST_BASE_PATH = '/taxation_customs/vies/rest-api';

export interface BuildOptions {
  logger?: Logger;
  now?: () => Date;
}

/** The sandbox HTTP server, not yet listening. */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const logger = options.logger ?? createLogger({ service: 'sandbox-vies', level: config.logLevel });
  const sandbox = new ViesSandbox(options.now);

  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
  });

  // VIES answers every fault in its CommonResponse shape, also for a body that is not JSON.
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ViesFault) return reply.code(FAULTS[err.code].status).send(faultBody(err.code));
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) return reply.code(400).send(faultBody('INVALID_INPUT'));
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(faultBody('SERVICE_UNAVAILABLE'));
  });

  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({
      error: `No such route (${req.method} ${req.url.split('?')[0]}). The REST API lives under ${REST_BASE_PATH}; see the README.`,
    }),
  );

  app.get('/health', async () => ({ status: 'ok' }));
  void app.register(async (scope) => restApiRoutes(scope, sandbox), { prefix: REST_BASE_PATH });
  void app.register(async (scope) => controlRoutes(scope, sandbox), { prefix: '/_sandbox' });
  return app;
}
