import type { FastifyInstance, FastifyReply } from 'fastify';
import { NO_REQUEST } from '../domain/account';
import { PAY_PAGE_METHODS } from '../domain/cards';
import { AWAITING_PAYMENT, confirmPaymentIntent } from '../domain/payment-intents';
import { ApiError } from '../errors';
import { PAGE_CSP, renderMessagePage, renderPayPage } from '../pay/page';
import type { ApiDeps } from './api';
import { Params } from './params';

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** return_url with the query parameters the provider appends after a redirect-based payment. */
export function returnUrlWithResult(
  returnUrl: string,
  intentId: string,
  clientSecret: string,
  succeeded: boolean,
): string {
  const url = new URL(returnUrl);
  url.searchParams.set('payment_intent', intentId);
  url.searchParams.set('payment_intent_client_secret', clientSecret);
  url.searchParams.set('redirect_status', succeeded ? 'succeeded' : 'failed');
  return url.toString();
}

/** Buyer-facing checkout: GET shows the page, POST (outcome=pay|decline) confirms like the API does. */
export function payPageRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const find = (id: string) => deps.sandbox.ownerOf(id)?.paymentIntents.get(id);
  const fail = (reply: FastifyReply, err: unknown): FastifyReply => {
    if (err instanceof ApiError) return html(reply, err.status, renderMessagePage('Payment error', err.message));
    throw err;
  };

  app.get<{ Params: { id: string } }>('/pay/:id', async (req, reply) => {
    try {
      const rec = find(req.params.id);
      if (!rec)
        return html(
          reply,
          404,
          renderMessagePage('Payment not found', `No payment ${req.params.id} exists in this sandbox.`),
        );
      const q = Params.of(req.query, ['return_url']);
      const returnUrl = q.url('return_url') ?? rec.returnUrl;
      return html(reply, 200, renderPayPage(rec.intent, AWAITING_PAYMENT.includes(rec.intent.status), { returnUrl }));
    } catch (err) {
      return fail(reply, err);
    }
  });

  app.post<{ Params: { id: string } }>('/pay/:id', async (req, reply) => {
    try {
      const id = req.params.id;
      const account = deps.sandbox.ownerOf(id);
      const rec = account?.paymentIntents.get(id);
      if (!account || !rec)
        return html(reply, 404, renderMessagePage('Payment not found', `No payment ${id} exists in this sandbox.`));
      const p = Params.of(req.body, ['outcome', 'return_url']);
      const outcome = p.enumOf('outcome', ['pay', 'decline'] as const);
      if (!outcome) return html(reply, 400, renderMessagePage('Invalid request', 'Choose an outcome: pay or decline.'));
      const returnUrl = p.url('return_url') ?? rec.returnUrl;
      if (!AWAITING_PAYMENT.includes(rec.intent.status)) {
        return html(reply, 409, renderPayPage(rec.intent, false, { returnUrl }));
      }
      const result = confirmPaymentIntent(
        account,
        id,
        { payment_method: PAY_PAGE_METHODS[outcome], return_url: returnUrl },
        NO_REQUEST,
      );
      if (returnUrl) {
        const target = returnUrlWithResult(returnUrl, id, result.intent.client_secret, result.failure === null);
        return reply.code(303).header('location', target).header('cache-control', 'no-store').send();
      }
      return html(
        reply,
        200,
        renderPayPage(result.intent, AWAITING_PAYMENT.includes(result.intent.status), { returnUrl: null }),
      );
    } catch (err) {
      return fail(reply, err);
    }
  });
}
