import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { call } from '@paymesh/grpc';
import { registerRows, row, text } from '@paymesh/http';
import type { Clients } from '../../clients';
import { providerSignature } from '../guards';
import { webhookReceived } from '../responses';

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
export const hookRows = [
  row<{ clients: Clients }>()({
    tag: 'Webhooks',
    guard: providerSignature,
    method: 'POST',
    path: '/hooks/:type/:providerId',
    operationId: 'receiveProviderWebhook',
    summary: 'Provider webhook delivery (any content type; verified per provider over the exact bytes)',
    params: hookParams,
    response: webhookReceived,
    errors: [400, 404],
    config: { rateLimit: false },
    async handler({ deps: { clients }, req, params }) {
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const c = clients.paymentsWebhooks;
      const res = await call(
        c,
        c.handleWebhook,
        { providerType: params.type, providerId: params.providerId, rawBody, headers: forwardedHeaders(req.headers) },
        { deadlineMs: clients.deadlineMs, target: 'payments-webhooks' },
      );
      return res.outcome === 'duplicate'
        ? { received: true as const, duplicate: true as const }
        : { received: true as const };
    },
  }),
];

/** The webhook rows in a scope of their own that reads every body as bytes. */
export async function registerHookRoutes(app: FastifyInstance, clients: Clients): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    registerRows(scope, hookRows, { deps: { clients }, input: 'handler' });
  });
}
