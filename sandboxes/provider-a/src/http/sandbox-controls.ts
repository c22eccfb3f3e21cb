import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../domain/account';
import { closeDispute, DISPUTE_REASONS, openDispute } from '../domain/disputes';
import { NO_REQUEST } from '../domain/account';
import { invalidParam, noSuch } from '../errors';
import type { ApiDeps } from './api';
import { authenticate } from './auth';
import { deliveryTargets } from '../webhooks/targets';
import { ALL_SCOPES } from '../webhooks/delivery';
import { Params } from './params';

/**
 * Sandbox-only controls under /_sandbox: things the real provider does on its own (disputes,
 * retries) made triggerable by tests. An API key is optional; with one, only that account's
 * objects are visible.
 */
export function sandboxControlRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const scopedAccount = (req: FastifyRequest): Account | undefined =>
    req.headers.authorization ? deps.sandbox.account(authenticate(req)) : undefined;

  const ownerOf = (req: FastifyRequest, id: string, resource: string, has: (a: Account) => boolean): Account => {
    const scoped = scopedAccount(req);
    const account = scoped ?? deps.sandbox.ownerOf(id);
    if (!account || !has(account)) throw noSuch(resource, id);
    return account;
  };

  app.post<{ Params: { chargeId: string } }>('/_sandbox/charges/:chargeId/dispute', async (req) => {
    const { chargeId } = req.params;
    const account = ownerOf(req, chargeId, 'charge', (a) => a.charges.has(chargeId));
    const p = Params.of(req.body, ['reason']);
    const reason = p.enumOf('reason', DISPUTE_REASONS) ?? 'fraudulent';
    return openDispute(account, chargeId, reason, NO_REQUEST);
  });

  app.post<{ Params: { id: string } }>('/_sandbox/disputes/:id/close', async (req) => {
    const { id } = req.params;
    const account = ownerOf(req, id, 'dispute', (a) => a.disputes.has(id));
    const p = Params.of(req.body, ['outcome']);
    const outcome = p.enumOf('outcome', ['won', 'lost'] as const);
    if (!outcome) throw invalidParam('Missing required param: outcome (won or lost).', 'outcome', 'parameter_missing');
    return closeDispute(account, id, outcome, NO_REQUEST);
  });

  app.post<{ Params: { id: string } }>('/_sandbox/events/:id/resend', async (req) => {
    const { id } = req.params;
    const account = ownerOf(req, id, 'event', (a) => a.eventsById.has(id));
    const event = account.eventsById.get(id);
    if (!event) throw noSuch('event', id, 'id');
    const p = Params.of(req.body, ['endpoint']);
    const only = p.string('endpoint');
    const chosen = only ? account.webhookEndpoints.get(only) : undefined;
    if (only && !chosen) throw noSuch('webhook_endpoint', only, 'endpoint', 400);
    const records = chosen ? [chosen] : account.endpointsFor(event.type);
    event.pending_webhooks += records.length;
    deps.dispatcher.deliver(event, deliveryTargets(account, records), account.apiKey, true);
    return { object: 'sandbox.resend', event: event.id, endpoints: records.map((r) => r.endpoint.id) };
  });

  // Loses the deliveries of events created from now on (a lost webhook), for one account (with an
  // API key) or for all; `/_sandbox/events/:id/resend` still delivers, so an event can arrive late.
  app.post('/_sandbox/webhooks/drop', async (req) => {
    const p = Params.of(req.body, ['enabled']);
    const enabled = p.bool('enabled');
    if (enabled === undefined)
      throw invalidParam('Missing required param: enabled (true or false).', 'enabled', 'parameter_missing');
    const scope = scopedAccount(req)?.apiKey ?? ALL_SCOPES;
    deps.dispatcher.setDropping(scope, enabled);
    return { object: 'sandbox.webhook_drop', scope: scope === ALL_SCOPES ? 'all' : 'account', enabled };
  });

  app.get('/_sandbox/deliveries', async (req) => {
    const q = Params.of(req.query, ['event', 'endpoint']);
    const scoped = scopedAccount(req);
    const data = deps.dispatcher
      .list({
        scope: scoped?.apiKey,
        eventId: q.string('event') ?? undefined,
        endpointId: q.string('endpoint') ?? undefined,
      })
      .map(({ scope: _scope, ...attempt }) => attempt);
    return { object: 'list', data, has_more: false, url: '/_sandbox/deliveries' };
  });
}
