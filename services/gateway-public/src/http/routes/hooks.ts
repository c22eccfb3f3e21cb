import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { call } from '@paymesh/grpc';
import { text } from '@paymesh/http';
import type { Clients } from '../../clients';
import { doc, webhookReceived } from '../responses';
import { parse } from './parse';

const hookParams = z.object({ type: text(32, 1), providerId: text(100, 1) });

/** Headers never forwarded to the webhook verifier (credentials of other systems). */
const DROPPED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'proxy-authorization']);

function forwardedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || DROPPED_HEADERS.has(key)) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * `POST /hooks/:type/:providerId` (outside /api/v1): keeps the exact body bytes, whatever the
 * content type, because provider signatures are computed over them, and hands them to
 * payments-webhooks for verification. 200 acknowledges (also duplicates), 400 rejects.
 * Not rate-limited per address: deliveries are authenticated per provider, and a provider's burst
 * (many merchants, retries) arrives from few addresses and must not be turned away.
 */
export async function registerHookRoutes(app: FastifyInstance, clients: Clients): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    const schema = doc({
      tag: 'Webhooks',
      operationId: 'receiveProviderWebhook',
      summary: 'Provider webhook delivery (any content type; verified per provider over the exact bytes)',
      response: webhookReceived,
      errors: [400, 404],
    });
    // The rate limiter's route config (typed by @fastify/rate-limit, not a dependency here).
    scope.post<{ Params: { type: string; providerId: string } }, { rateLimit: false }>(
      '/hooks/:type/:providerId',
      { schema, config: { rateLimit: false } },
      async (req) => {
        const params = parse(hookParams, req.params, 'params');
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const c = clients.paymentsWebhooks;
        const res = await call(
          c,
          c.handleWebhook,
          { providerType: params.type, providerId: params.providerId, rawBody, headers: forwardedHeaders(req.headers) },
          { deadlineMs: clients.deadlineMs, target: 'payments-webhooks' },
        );
        return res.outcome === 'duplicate' ? { received: true, duplicate: true } : { received: true };
      },
    );
  });
}
