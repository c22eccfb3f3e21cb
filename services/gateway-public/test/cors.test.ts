import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { createLogger, ForbiddenError, ValidationError } from '@paymesh/core';
import { GrpcServer, unary } from '@paymesh/grpc';
import { checkoutPayments } from '@paymesh/proto';
import { buildPublicServer } from '../src/http/server';
import { createClients, type Clients } from '../src/clients';
import { registerCheckoutRoutes } from '../src/http/routes/checkouts';
import { registerTransactionRoutes } from '../src/http/routes/transactions';

const logger = createLogger({ service: 'gateway-public-cors-test', level: 'silent' });
const MAIN = 'https://checkout.paymesh.test';
const SHOP = 'https://shop.example';
let grpc: GrpcServer;
let app: FastifyInstance;
let clients: Clients;
const seenOrigins: string[] = [];

/** Checkout stand-in: allows only the shop's origin (and trusted callers, sent as ''). */
function publicCheckout(req: checkoutPayments.GetPublicCheckoutRequest): checkoutPayments.PublicCheckout {
  seenOrigins.push(req.browserOrigin);
  if (req.browserOrigin !== '' && req.browserOrigin !== SHOP) throw new ForbiddenError('origin not allowed for this checkout');
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
  grpc = new GrpcServer(logger, 'checkout');
  const notUsed = unary(logger, 'x', async (): Promise<never> => {
    throw new ValidationError('not used');
  });
  const impl: UntypedServiceImplementation = Object.fromEntries(
    Object.keys(checkoutPayments.CheckoutPaymentsServiceService).map((name) => [name, notUsed]),
  );
  impl.getPublicCheckout = unary(logger, 'GetPublicCheckout', async (req: checkoutPayments.GetPublicCheckoutRequest) => publicCheckout(req));
  grpc.addService<UntypedServiceImplementation>(checkoutPayments.CheckoutPaymentsServiceService, impl);
  const port = await grpc.listen('127.0.0.1:0');
  clients = createClients({
    CHECKOUT_GRPC_ADDR: `127.0.0.1:${port}`,
    PAYMENTS_WEBHOOKS_GRPC_ADDR: '127.0.0.1:1',
    BILLING_GRPC_ADDR: '127.0.0.1:1',
    TAX_GRPC_ADDR: '127.0.0.1:1',
    RECURRING_GRPC_ADDR: '127.0.0.1:1',
    DOCUMENTS_GRPC_ADDR: '127.0.0.1:1',
    NOTIFICATIONS_IPN_GRPC_ADDR: '127.0.0.1:1',
    GRPC_DEADLINE_MS: 3000,
    PAYMENT_CALL_DEADLINE_MS: 3000,
  });
  const routeOptions = { clients, mainFrontendOrigin: MAIN };
  app = await buildPublicServer({
    logger,
    bodyLimit: 1024 * 1024,
    healthChecks: () => [],
    clients,
    apiRoutes: [(scope) => registerCheckoutRoutes(scope, routeOptions), (scope) => registerTransactionRoutes(scope, routeOptions)],
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
  it.each([
    ['/api/v1/checkouts/cs_abc', 'GET', undefined],
    ['/api/v1/checkouts/cs_abc/handoff', 'POST', 'content-type'],
    ['/api/v1/transactions/create', 'POST', 'content-type,x-request-id'],
    ['/api/v1/transactions/0123456789abcdef01234567/cancel', 'POST', undefined],
  ])('answers the preflight of %s (%s) with the reflected origin, no credentials', async (url, method, reqHeaders) => {
    const res = await preflight(url, SHOP, method, reqHeaders);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'x-request-id']),
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(String(res.headers.vary)).toMatch(/Origin/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(seenOrigins).toEqual([]);
  });

  it('gives an opaque origin (Origin: null) no CORS headers', async () => {
    const res = await preflight('/api/v1/checkouts/cs_abc', 'null', 'GET');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.statusCode).toBe(404);
  });

  it('adds no CORS headers to provider webhooks or health', async () => {
    const hook = await preflight('/hooks/provider_a/abc', SHOP, 'POST');
    expect(hook.headers['access-control-allow-origin']).toBeUndefined();
    const health = await app.inject({ method: 'GET', url: '/health', headers: { origin: SHOP } });
    expect(health.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets an allowed origin read the view (X-Request-ID exposed) and keeps the 403 for a foreign one', async () => {
    const ok = await app.inject({ method: 'GET', url: '/api/v1/checkouts/cs_abc', headers: { origin: SHOP } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(SHOP);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/X-Request-ID/i);
    expect(ok.json()).toMatchObject({ id: 'cs_abc', branding: { primaryColor: '#0a84ff' } });

    const foreign = await app.inject({ method: 'GET', url: '/api/v1/checkouts/cs_abc', headers: { origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error).toMatch(/origin not allowed/);
    expect(seenOrigins).toEqual([SHOP, 'https://evil.example']);
  });
});
