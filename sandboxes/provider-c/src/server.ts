import { randomBytes } from 'node:crypto';
import { type Clock, createLogger, type Logger, systemClock } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { defaultPublicUrl, type SandboxConfig } from './config';
import { Sandbox } from './domain/sandbox';
import { ApiError } from './errors';
import { apiRoutes, IdempotencyStore } from './http/api';
import { flowRoutes } from './http/flow';
import { controlRoutes } from './http/controls';
import { WebhookCaller } from './webhooks/delivery';

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * The sandbox HTTP server, not yet listening. Call `listen({ host: config.host, port: config.port })`;
 * `close()` also stops webhook sends.
 */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'sandbox-provider-c', level: config.logLevel });
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
  const sandbox = new Sandbox(clock, (owner, events) => caller.send(owner, events), config.collectionDelayMs);

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });
  app.addHook('onClose', async () => {
    sandbox.close();
    await caller.close();
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).send(err.body(req.id));
    const status =
      typeof err === 'object' && err !== null && 'statusCode' in err && typeof err.statusCode === 'number'
        ? err.statusCode
        : 500;
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .send(
          new ApiError(
            status,
            'invalid_api_usage',
            err instanceof Error ? err.message : 'bad request',
            'invalid_document_structure',
          ).body(req.id),
        );
    }
    req.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send(
        new ApiError(500, 'gocardless', 'Uh-oh! Something went wrong in the sandbox.', 'internal_server_error').body(
          req.id,
        ),
      );
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(
        new ApiError(
          404,
          'invalid_api_usage',
          `Unrecognised request path (${req.method}: ${req.url.split('?')[0]}). This sandbox implements a subset of the API; see its README.`,
          'path_not_found',
        ).body(req.id),
      ),
  );

  app.get('/health', async () => ({ status: 'ok' }));
  apiRoutes(app, {
    sandbox,
    publicUrl,
    idempotency: new IdempotencyStore(() => clock.now().getTime(), config.idempotentReplay),
  });
  flowRoutes(app, sandbox);
  controlRoutes(app, sandbox, caller);
  return app;
}
