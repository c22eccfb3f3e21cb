import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, validationFailed } from '../errors';
import { PAYER_DECISIONS, type PayerDecision, type Sandbox } from '../domain/sandbox';
import { mandateView, paymentView } from '../domain/views';
import { ALL_OWNERS, type WebhookCaller } from '../webhooks/delivery';
import { field, tokenOf } from './api';

/**
 * Sandbox-only controls under /_sandbox: the dashboard's webhook endpoint, and what the payer, the
 * banks or the provider do on their own, made triggerable by tests. Every control takes the
 * account's access token and only sees that account's resources (the webhook drop switch also
 * works without one, for all accounts). Each change sends a signed webhook.
 */
export function controlRoutes(app: FastifyInstance, sandbox: Sandbox, caller: WebhookCaller): void {
  const param = (req: FastifyRequest, name: string) => field(req.body, name);

  app.put('/_sandbox/webhook_endpoint', async (req) => {
    const owner = tokenOf(req);
    const url = param(req, 'url');
    const secret = param(req, 'secret');
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url) || !URL.canParse(url))
      throw validationFailed('url must be an http(s) URL', 'url');
    if (typeof secret !== 'string' || secret.length < 16 || secret.length > 200)
      throw validationFailed('secret must be 16 to 200 characters', 'secret');
    caller.setEndpoint(owner, url, secret);
    return { webhook_endpoint: { url } };
  });

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/decide', async (req) => {
    const br = sandbox.billingRequest(sandbox.payment(req.params.id, tokenOf(req)).billingRequestId);
    const raw = param(req, 'decision');
    const decision = PAYER_DECISIONS.find((d): d is PayerDecision => d === raw);
    if (!decision) throw validationFailed(`decision must be one of ${PAYER_DECISIONS.join(', ')}`, 'decision');
    const collect = param(req, 'collect') ?? true;
    if (typeof collect !== 'boolean') throw validationFailed('collect must be a boolean', 'collect');
    sandbox.decide(br, decision);
    const p = sandbox.payment(br.paymentId ?? '');
    if (collect && p.status === 'pending_submission') sandbox.collect(p);
    return { payments: paymentView(p) };
  });

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/collect', async (req) => ({
    payments: paymentView(sandbox.collect(sandbox.payment(req.params.id, tokenOf(req)))),
  }));

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/charge_back', async (req) => ({
    payments: paymentView(sandbox.chargeBack(sandbox.payment(req.params.id, tokenOf(req)))),
  }));

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/close_chargeback', async (req) => {
    const p = sandbox.payment(req.params.id, tokenOf(req));
    const outcome = param(req, 'outcome');
    if (outcome !== 'won' && outcome !== 'lost') throw validationFailed('outcome must be won or lost', 'outcome');
    return { payments: paymentView(sandbox.closeChargeback(p, outcome)) };
  });

  app.post<{ Params: { id: string } }>('/_sandbox/mandates/:id/status', async (req) => {
    const m = sandbox.mandate(req.params.id, tokenOf(req));
    const status = param(req, 'status');
    if (status !== 'cancelled' && status !== 'failed' && status !== 'expired')
      throw validationFailed('status must be cancelled, failed or expired', 'status');
    return { mandates: mandateView(sandbox.setMandate(m, status)) };
  });

  app.post<{ Params: { id: string } }>('/_sandbox/webhooks/:id/resend', async (req) => {
    const w = caller.webhook(req.params.id, tokenOf(req));
    if (!w) throw notFound(`Resource not found: webhook ${req.params.id}`);
    const raw = param(req, 'times') ?? 1;
    const times = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 20 ? raw : null;
    if (times === null) throw validationFailed('times must be an integer from 1 to 20', 'times');
    for (let i = 0; i < times; i++) caller.resend(w);
    return { webhook_id: w.id, sends: times };
  });

  // Loses the webhooks of changes from now on (a lost webhook), for one account (with an access
  // token) or for all (without one). The resend control still sends: a lost webhook arriving late.
  app.post('/_sandbox/webhooks/drop', async (req) => {
    const who = req.headers.authorization ? tokenOf(req) : undefined;
    const enabled = param(req, 'enabled');
    if (typeof enabled !== 'boolean') throw validationFailed('enabled must be true or false', 'enabled');
    caller.setDropping(who ?? ALL_OWNERS, enabled);
    return { webhook_drop: { scope: who === undefined ? 'all' : 'account', enabled } };
  });

  app.get<{ Querystring: { resource?: string } }>('/_sandbox/webhooks', async (req) => {
    const data = caller.list({ owner: tokenOf(req), resource: req.query.resource });
    return { count: data.length, webhooks: data };
  });
}
