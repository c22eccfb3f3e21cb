import { randomBytes } from 'node:crypto';
import { type Clock, createLogger, type Logger, systemClock } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { defaultPublicUrl, type SandboxConfig } from './config';
import { Sandbox } from './domain/sandbox';
import { ApiError } from './errors';
import { apiRoutes, IdempotencyStore } from './http/api';
import { checkoutRoutes } from './http/checkout';
import { controlRoutes } from './http/controls';
import { WebhookCaller } from './webhooks/delivery';

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * The sandbox HTTP server, not yet listening. Call `listen({ host: config.host, port: config.port })`;
 * `close()` also stops webhook calls.
 */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'sandbox-provider-b', level: config.logLevel });
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
  });

  const publicUrl = (): string => {
    if (config.publicUrl) return config.publicUrl;
    const address = app.server.address();
    return defaultPublicUrl(config.host, address && typeof address === 'object' ? address.port : config.port);
  };

  const caller = new WebhookCaller(config.webhooks, logger.child({ component: 'webhooks' }));
  const sandbox = new Sandbox(clock, (p) => {
    if (p.webhookUrl) caller.call(p.id, p.webhookUrl, p.owner);
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });
  app.addHook('onClose', async () => {
    await caller.close();
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).type('application/hal+json').send(err.body);
    const status =
      typeof err === 'object' && err !== null && 'statusCode' in err && typeof err.statusCode === 'number'
        ? err.statusCode
        : 500;
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .type('application/hal+json')
        .send(new ApiError(status, 'Bad Request', err instanceof Error ? err.message : 'bad request').body);
    }
    req.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .type('application/hal+json')
      .send(new ApiError(500, 'Internal Server Error', 'An unknown error occurred in the sandbox.').body);
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .type('application/hal+json')
      .send(
        new ApiError(
          404,
          'Not Found',
          `Unrecognized request URL (${req.method}: ${req.url.split('?')[0]}). This sandbox implements a subset of the v2 API; see its README.`,
        ).body,
      ),
  );

  app.get('/health', async () => ({ status: 'ok' }));
  apiRoutes(app, { sandbox, publicUrl, idempotency: new IdempotencyStore(() => clock.now().getTime()) });
  checkoutRoutes(app, sandbox);
  controlRoutes(app, sandbox, caller, publicUrl);
  return app;
}
