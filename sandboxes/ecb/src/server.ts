import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { SandboxConfig } from './config';
import { EcbSandbox } from './domain/sandbox';
import { controlRoutes } from './http/controls';
import { fileRoutes, FILES_PATH } from './http/files';

export { FILES_PATH } from './http/files';

export interface BuildOptions {
  logger?: Logger;
  /** The sandbox's clock: the last publication day is today's date (UTC) when it is one. */
  now?: () => Date;
}

/** The sandbox HTTP server, not yet listening. */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const logger = options.logger ?? createLogger({ service: 'sandbox-ecb', level: config.logLevel });
  const sandbox = new EcbSandbox(options.now);

  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
  });

  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({
      error: `No such route (${req.method} ${req.url.split('?')[0]}). The files are ${FILES_PATH}/eurofxref-hist-90d.xml and ${FILES_PATH}/eurofxref-daily.xml; see the README.`,
    }),
  );

  app.get('/health', async () => ({ status: 'ok' }));
  void app.register(async (scope) => fileRoutes(scope, sandbox), { prefix: FILES_PATH });
  void app.register(async (scope) => controlRoutes(scope, sandbox), { prefix: '/_sandbox' });
  return app;
}
