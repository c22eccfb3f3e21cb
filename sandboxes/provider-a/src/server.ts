import { type Clock, createLogger, type Logger, systemClock } from '@paymesh/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import qs from 'qs';
import { defaultPublicUrl, type SandboxConfig } from './config';
import { Sandbox } from './domain/account';
import { API_VERSION } from './domain/api-version';
import { ApiError } from './errors';
import { type ApiDeps } from './http/api';
import { QS_OPTIONS, registerBodyParsers } from './http/forms';
import { IdempotencyStore } from './http/idempotency';
import { objectRoutes } from './http/objects';
import { payPageRoutes } from './http/pay-page';
import { paymentIntentRoutes } from './http/payment-intents';
import { sandboxControlRoutes } from './http/sandbox-controls';
import { webhookEndpointRoutes } from './http/webhook-endpoints';
import { randomBase62 } from './ids';
import { WebhookDispatcher } from './webhooks/delivery';
import { deliveryTargets } from './webhooks/targets';
import { carryTraceContext, causingTraceHeaders } from './webhooks/trace-context';

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * The sandbox HTTP server, not yet listening. Call `listen({ host: config.host, port: config.port })`;
 * `close()` also stops webhook deliveries.
 */
export function buildServer(config: SandboxConfig, options: BuildOptions = {}): FastifyInstance {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'sandbox-provider-a', level: config.logLevel });

  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => `req_${randomBase62(14)}`,
    requestIdHeader: false,
    routerOptions: { querystringParser: (s: string) => qs.parse(s, QS_OPTIONS) as Record<string, unknown> },
  });

  const publicUrl = (): string => {
    if (config.publicUrl) return config.publicUrl;
    const address = app.server.address();
    return defaultPublicUrl(config.host, address && typeof address === 'object' ? address.port : config.port);
  };

  const dispatcher = new WebhookDispatcher(config.webhooks, logger.child({ component: 'webhooks' }), clock);
  const sandbox = new Sandbox({
    clock,
    apiVersion: API_VERSION,
    payUrl: (id) => `${publicUrl()}/pay/${id}`,
    onEvent: (account, event) =>
      dispatcher.deliver(
        event,
        deliveryTargets(account, account.endpointsFor(event.type)),
        account.apiKey,
        false,
        causingTraceHeaders(),
      ),
  });
  const deps: ApiDeps = { sandbox, dispatcher, idempotency: new IdempotencyStore(() => clock.now().getTime()) };

  registerBodyParsers(app);
  carryTraceContext(app);

  app.addHook('onSend', async (req, reply) => {
    reply.header('Request-Id', req.id);
  });
  app.addHook('onClose', async () => {
    await dispatcher.close();
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).send({ error: err.body });
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ error: { type: 'invalid_request_error', message: (err as Error).message } });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: { type: 'api_error', message: 'An unknown error occurred in the sandbox.' } });
  });

  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${req.method}: ${req.url.split('?')[0]}). This sandbox implements a subset of the v1 API; see its README.`,
      },
    }),
  );

  app.get('/health', async () => ({ status: 'ok' }));

  paymentIntentRoutes(app, deps);
  objectRoutes(app, deps);
  webhookEndpointRoutes(app, deps);
  sandboxControlRoutes(app, deps);
  payPageRoutes(app, deps);

  return app;
}
