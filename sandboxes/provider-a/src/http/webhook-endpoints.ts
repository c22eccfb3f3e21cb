import type { FastifyInstance } from 'fastify';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  updateWebhookEndpoint,
} from '../domain/webhook-endpoints';
import { invalidParam } from '../errors';
import { type ApiDeps, apiRoute } from './api';
import { LIST_PARAMS, paginate } from './list';
import { Params } from './params';

const EVENT_TYPE = /^(\*|[a-z_]+(\.[a-z_]+)*)$/;

function enabledEvents(p: Params, required: boolean): string[] | undefined {
  const events = p.stringArray('enabled_events', { required });
  if (!events) return undefined;
  events.forEach((e, i) => {
    if (!EVENT_TYPE.test(e))
      throw invalidParam(`Invalid enabled_events[${i}]: ${e} is not a valid event type`, `enabled_events[${i}]`);
  });
  return events;
}

export function webhookEndpointRoutes(app: FastifyInstance, deps: ApiDeps): void {
  apiRoute(app, deps, 'POST', '/v1/webhook_endpoints', ({ account, body }) => {
    const p = Params.of(body, ['url', 'enabled_events', 'description', 'metadata', 'api_version', 'connect']);
    const url = p.url('url');
    if (!url) throw invalidParam('Missing required param: url.', 'url', 'parameter_missing');
    return createWebhookEndpoint(account, {
      url,
      enabled_events: enabledEvents(p, true) ?? [],
      description: p.string('description', { max: 5000 }) ?? null,
      metadata: p.newMetadata(),
      api_version: p.string('api_version') ?? null,
    });
  });

  apiRoute(app, deps, 'GET', '/v1/webhook_endpoints', ({ account, query }) => {
    const q = Params.of(query, [...LIST_PARAMS]);
    return paginate(
      [...account.webhookEndpoints.values()].map((r) => r.endpoint),
      q,
      '/v1/webhook_endpoints',
    );
  });

  apiRoute(app, deps, 'GET', '/v1/webhook_endpoints/:id', ({ account, params }) =>
    getWebhookEndpoint(account, params.id),
  );

  apiRoute(app, deps, 'POST', '/v1/webhook_endpoints/:id', ({ account, body, params }) => {
    const p = Params.of(body, ['url', 'enabled_events', 'description', 'metadata', 'disabled']);
    const url = p.url('url');
    if (url === null) throw invalidParam('Invalid url: must not be empty.', 'url');
    return updateWebhookEndpoint(account, params.id, {
      url,
      enabled_events: enabledEvents(p, false),
      description: p.string('description', { max: 5000 }),
      metadata: p.metadata(),
      disabled: p.bool('disabled'),
    });
  });

  apiRoute(app, deps, 'DELETE', '/v1/webhook_endpoints/:id', ({ account, params }) =>
    deleteWebhookEndpoint(account, params.id),
  );
}
