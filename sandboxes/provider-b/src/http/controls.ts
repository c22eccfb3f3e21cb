import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unprocessable } from '../errors';
import { minorOf } from '../domain/money';
import { FINAL_STATUSES, type FinalStatus, type Sandbox } from '../domain/sandbox';
import { chargebackView, paymentView, refundView } from '../domain/views';
import { ALL_OWNERS, type WebhookCaller } from '../webhooks/delivery';
import { apiKeyOf } from './api';

const CHARGEBACK_REASONS = ['AC04', 'AC06', 'AM04', 'MD06', 'MS02', 'fraudulent', 'product_not_received'] as const;

function param(req: FastifyRequest, name: string): unknown {
  return req.body !== null && typeof req.body === 'object' ? Reflect.get(req.body, name) : undefined;
}

/**
 * Sandbox-only controls under /_sandbox: what the buyer, the bank or the provider does on its own,
 * made triggerable by tests. An API key is optional; with one, only that account's payments are
 * visible. Each change calls the payment's webhook, as the provider does.
 */
export function controlRoutes(
  app: FastifyInstance,
  sandbox: Sandbox,
  caller: WebhookCaller,
  publicUrl: () => string,
): void {
  const owner = (req: FastifyRequest): string | undefined => (req.headers.authorization ? apiKeyOf(req) : undefined);

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/status', async (req) => {
    const p = sandbox.payment(req.params.id, owner(req));
    const raw = param(req, 'status');
    const status = FINAL_STATUSES.find((s): s is FinalStatus => s === raw);
    if (!status) throw unprocessable(`status must be one of ${FINAL_STATUSES.join(', ')}.`, 'status');
    return paymentView(sandbox.complete(p, status), publicUrl());
  });

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/chargebacks', async (req) => {
    const p = sandbox.payment(req.params.id, owner(req));
    const reason = param(req, 'reason') ?? 'AC04';
    if (typeof reason !== 'string' || !(CHARGEBACK_REASONS as readonly string[]).includes(reason)) {
      throw unprocessable(`reason must be one of ${CHARGEBACK_REASONS.join(', ')}.`, 'reason');
    }
    const rawAmount = param(req, 'amount');
    const amount =
      rawAmount === undefined
        ? undefined
        : typeof rawAmount === 'string'
          ? minorOf({ currency: p.currency, value: rawAmount })
          : null;
    if (amount === null) throw unprocessable('amount must be a value such as "10.00".', 'amount');
    return chargebackView(sandbox.openChargeback(p, reason, amount), p, publicUrl());
  });

  app.post<{ Params: { id: string } }>('/_sandbox/chargebacks/:id/close', async (req) => {
    const c = sandbox.chargeback(req.params.id);
    const p = sandbox.payment(c.paymentId, owner(req));
    const outcome = param(req, 'outcome');
    if (outcome !== 'won' && outcome !== 'lost') throw unprocessable('outcome must be won or lost.', 'outcome');
    return chargebackView(sandbox.closeChargeback(c, outcome), p, publicUrl());
  });

  app.post<{ Params: { id: string } }>('/_sandbox/refunds/:id/fail', async (req) => {
    const r = sandbox.refund(req.params.id, owner(req));
    return refundView(sandbox.settleRefund(r, 'failed'), sandbox.payment(r.paymentId), publicUrl());
  });

  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/webhook', async (req) => {
    const p = sandbox.payment(req.params.id, owner(req));
    if (!p.webhookUrl) throw unprocessable('The payment has no webhook URL.', 'webhookUrl');
    const raw = param(req, 'times') ?? 1;
    const times = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 20 ? raw : null;
    if (times === null) throw unprocessable('times must be an integer from 1 to 20.', 'times');
    // Sent even while dropping is on: this is how a dropped webhook arrives late.
    for (let i = 0; i < times; i++) caller.call(p.id, p.webhookUrl, p.owner, true);
    return { resource: 'sandbox.webhook', paymentId: p.id, calls: times };
  });

  // Loses the webhook calls of status changes from now on (a lost webhook), for one account (with
  // an API key) or for all.
  app.post('/_sandbox/webhooks/drop', async (req) => {
    const enabled = param(req, 'enabled');
    if (typeof enabled !== 'boolean') throw unprocessable('enabled must be true or false.', 'enabled');
    const who = owner(req);
    caller.setDropping(who ?? ALL_OWNERS, enabled);
    return { resource: 'sandbox.webhook-drop', scope: who === undefined ? 'all' : 'account', enabled };
  });

  app.get<{ Querystring: { payment?: string } }>('/_sandbox/webhook-calls', async (req) => {
    const data = caller.list({ owner: owner(req), paymentId: req.query.payment }).map(({ owner: _o, ...c }) => c);
    return { count: data.length, _embedded: { calls: data } };
  });
}
