import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger, ValidationError } from '@paymesh/core';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { paymentsWebhooks } from '@paymesh/proto';
import { buildPublicServer } from '../src/http/server';
import type { Clients } from '../src/clients';
import { standIn, testClients } from './kit';

const logger = createLogger({ service: 'gateway-public-test', level: 'silent' });
const seen: paymentsWebhooks.HandleWebhookRequest[] = [];
let grpc: GrpcServer;
let app: FastifyInstance;
let clients: Clients;

beforeAll(async () => {
  const webhooks = await standIn(logger, 'payments-webhooks', paymentsWebhooks.PaymentsWebhooksServiceService, {
    handleWebhook: unary(logger, 'HandleWebhook', async (req: paymentsWebhooks.HandleWebhookRequest) => {
      seen.push(req);
      if (req.headers['stripe-signature'] !== 'good') throw new ValidationError('webhook rejected: signature mismatch');
      return { outcome: req.providerId === 'dup' ? 'duplicate' : 'accepted', eventId: 'evt_1' };
    }),
  });
  grpc = webhooks.grpc;
  clients = testClients({ PAYMENTS_WEBHOOKS_GRPC_ADDR: webhooks.addr });
  app = await buildPublicServer({ logger, bodyLimit: 1024 * 1024, healthChecks: () => [], clients });
});

afterAll(async () => {
  await app?.close();
  clients?.close();
  await grpc?.shutdown(100);
});

/** Posts a delivery to `/hooks/<path>`, signed so the stand-in accepts it ('good') or refuses it. */
const deliver = (path: string, payload: string, contentType: string, signature: 'good' | 'bad') =>
  app.inject({
    method: 'POST',
    url: `/hooks/${path}`,
    payload,
    headers: { 'content-type': contentType, 'stripe-signature': signature },
  });

describe('POST /hooks/:type/:providerId', () => {
  it('forwards the exact body bytes and lower-cased headers, and acknowledges with 200', async () => {
    const body = Buffer.from('{\n  "id": "evt_1",  "note": "caf\u00e9 \u2713"\n}\n', 'utf8');
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/provider_a/abc123',
      payload: body,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Stripe-Signature': 'good',
        Authorization: 'Bearer x',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    const req = seen.at(-1)!;
    expect(Buffer.compare(Buffer.from(req.rawBody), body)).toBe(0);
    expect(req).toMatchObject({ providerType: 'provider_a', providerId: 'abc123' });
    expect(req.headers['stripe-signature']).toBe('good');
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.headers.authorization).toBeUndefined();
  });

  it('keeps bodies of any content type, including invalid JSON', async () => {
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'a=1&b=%20'],
      ['text/plain', 'not json {'],
      ['application/json', '{broken'],
    ] as const) {
      const res = await deliver('provider_c/p1', payload, type, 'good');
      expect(res.statusCode).toBe(200);
      expect(Buffer.from(seen.at(-1)!.rawBody).toString('utf8')).toBe(payload);
    }
  });

  it('answers duplicates with 200 and duplicate: true, rejections with 400 and an error envelope', async () => {
    const dup = await deliver('provider_a/dup', '{}', 'application/json', 'good');
    expect(dup.statusCode).toBe(200);
    expect(dup.json()).toEqual({ received: true, duplicate: true });
    const bad = await deliver('provider_a/p1', '{}', 'application/json', 'bad');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'webhook rejected: signature mismatch' });
  });
});
