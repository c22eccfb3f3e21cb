import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger, ForbiddenError } from '@paymesh/core';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { checkoutPayments } from '@paymesh/proto';
import { buildPublicServer } from '../src/http/server';
import type { Clients } from '../src/clients';
import { publicApiRoutes } from '../src/http/routes';
import { standIn, testClients } from './kit';

const logger = createLogger({ service: 'gateway-public-cors-test', level: 'silent' });
const MAIN = 'https://checkout.paymesh.test';
const SHOP = 'https://shop.example';
let grpc: GrpcServer;
let app: FastifyInstance;
let clients: Clients;
const seenOrigins: string[] = [];
const seenTransactionOrigins: string[] = [];

/** Checkout stand-in: allows only the shop's origin (and trusted callers, sent as ''). */
function publicCheckout(req: checkoutPayments.GetPublicCheckoutRequest): checkoutPayments.PublicCheckout {
  seenOrigins.push(req.browserOrigin);
  if (req.browserOrigin !== '' && req.browserOrigin !== SHOP)
    throw new ForbiddenError('origin not allowed for this checkout');
  return {
    id: req.sessionPublicId,
    currency: 'EUR',
    amount: 100,
    status: 'pending',
    lineItems: [],
    providers: [],
    brandingLogo: '',
    brandingPrimaryColor: '#0a84ff',
    expiresAt: '2026-03-02T12:00:00.000Z',
    vatIdValidation: 'format',
  };
}

beforeAll(async () => {
  const checkout = await standIn(logger, 'checkout', checkoutPayments.CheckoutPaymentsServiceService, {
    getPublicCheckout: unary(logger, 'GetPublicCheckout', async (req: checkoutPayments.GetPublicCheckoutRequest) =>
      publicCheckout(req),
    ),
    getTransactionStatus: unary(
      logger,
      'GetTransactionStatus',
      async (req: checkoutPayments.TransactionRef): Promise<checkoutPayments.TransactionStatusView> => {
        seenTransactionOrigins.push(req.browserOrigin);
        if (req.browserOrigin !== '' && req.browserOrigin !== SHOP)
          throw new ForbiddenError('origin not allowed for this checkout');
        return {
          status: 1,
          externalReference: '',
          amount: 100,
          currency: 'EUR',
          returnUrl: '',
          cancelUrl: '',
          createdAt: '2026-03-01T12:00:00.000Z',
        };
      },
    ),
  });
  grpc = checkout.grpc;
  clients = testClients({ CHECKOUT_GRPC_ADDR: checkout.addr });
  const routeOptions = { clients, mainFrontendOrigin: MAIN };
  app = await buildPublicServer({
    logger,
    mainFrontendOrigin: MAIN,
    bodyLimit: 1024 * 1024,
    healthChecks: () => [],
    clients,
    apiRoutes: publicApiRoutes(routeOptions),
  });
});

afterAll(async () => {
  await app?.close();
  clients?.close();
  await grpc?.shutdown(100);
});

const preflight = (url: string, origin: string, method: string, headers?: string) =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

describe('CORS of the buyer-facing routes', () => {
  const TX = '0123456789abcdef01234567';

  it('reflects the hosted checkout origin without asking checkout, with no credentials', async () => {
    const res = await preflight('/api/v1/checkouts/cs_main', MAIN, 'POST', 'content-type,x-request-id');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(MAIN);
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['GET', 'POST']),
    );
    expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'x-request-id']),
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(String(res.headers.vary)).toMatch(/Origin/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(seenOrigins).toEqual([]);
  });

  it('never reflects a foreign origin: no CORS headers on the preflight, 403 and no CORS headers on the request', async () => {
    const pre = await preflight('/api/v1/checkouts/cs_abc', 'https://evil.example', 'POST', 'content-type');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const create = await preflight('/api/v1/transactions/create', 'https://evil.example', 'POST', 'content-type');
    expect(create.headers['access-control-allow-origin']).toBeUndefined();
    const billingRequest = await preflight(
      '/api/v1/billing-requests/create',
      'https://evil.example',
      'POST',
      'content-type',
    );
    expect(billingRequest.headers['access-control-allow-origin']).toBeUndefined();
    const foreign = await app.inject({
      method: 'GET',
      url: '/api/v1/checkouts/cs_abc',
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error).toMatch(/origin not allowed/);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(foreign.headers['x-request-id']).toBeTruthy();
  });

  it('reflects a site frontend origin only for what checkout allows it: the session or transaction the request names', async () => {
    const view = await preflight('/api/v1/checkouts/cs_abc', SHOP, 'GET');
    expect(view.headers['access-control-allow-origin']).toBe(SHOP);
    expect(seenOrigins).toContain(SHOP);
    const handoff = await preflight('/api/v1/checkouts/cs_abc/handoff', SHOP, 'POST', 'content-type');
    expect(handoff.headers['access-control-allow-origin']).toBe(SHOP);
    const cancel = await preflight(`/api/v1/transactions/${TX}/cancel`, SHOP, 'POST', 'content-type');
    expect(cancel.headers['access-control-allow-origin']).toBe(SHOP);
    expect(seenTransactionOrigins).toContain(SHOP);
    // Transaction creation names its session in the body: its preflight passes for an origin checkout accepted recently.
    const create = await preflight('/api/v1/transactions/create', SHOP, 'POST', 'content-type,x-request-id');
    expect(create.headers['access-control-allow-origin']).toBe(SHOP);
    // So does the direct-debit start.
    const billingRequest = await preflight('/api/v1/billing-requests/create', SHOP, 'POST', 'content-type');
    expect(billingRequest.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it('gives an opaque origin (Origin: null) no CORS headers', async () => {
    const res = await preflight('/api/v1/checkouts/cs_abc', 'null', 'GET');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds no CORS headers to provider webhooks or health', async () => {
    const hook = await preflight('/hooks/provider_a/abc', SHOP, 'POST');
    expect(hook.headers['access-control-allow-origin']).toBeUndefined();
    const health = await app.inject({ method: 'GET', url: '/health', headers: { origin: SHOP } });
    expect(health.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets an allowed origin read the view (X-Request-ID exposed)', async () => {
    const ok = await app.inject({ method: 'GET', url: '/api/v1/checkouts/cs_abc', headers: { origin: SHOP } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/X-Request-ID/i);
    expect(ok.json()).toMatchObject({ id: 'cs_abc', branding: { primaryColor: '#0a84ff' } });
  });
});
