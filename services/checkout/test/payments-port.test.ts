import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, NotFoundError, NotSupportedError } from '@paymesh/core';
import { GrpcServer, unary } from '@paymesh/grpc';
import { paymentsWebhooks } from '@paymesh/proto';
import { grpcPaymentsPort } from '../src/grpc/payments-webhooks-client';

/**
 * The gRPC adapter towards payments-webhooks: an RPC the service does not offer yet (UNIMPLEMENTED)
 * is a dependency outage (503 PAYMENTS_UNAVAILABLE), never fake data; other errors keep their kind.
 */
describe('payments-webhooks client', () => {
  const logger = createLogger({ service: 'test', level: 'silent' });
  const server = new GrpcServer(logger, 'payments-webhooks');
  let port: ReturnType<typeof grpcPaymentsPort>;

  beforeAll(async () => {
    const notYet = (name: string) =>
      unary(logger, name, async (): Promise<never> => {
        throw new NotSupportedError(`${name} is not available yet`);
      });
    server.addService(paymentsWebhooks.PaymentsWebhooksServiceService, {
      describe: unary(logger, 'Describe', async () => ({ service: 'payments-webhooks', version: 't' })),
      createProvider: notYet('CreateProvider'),
      getProvider: unary(logger, 'GetProvider', async (): Promise<never> => {
        throw new NotFoundError('provider not found');
      }),
      listProviders: notYet('ListProviders'),
      deleteProvider: notYet('DeleteProvider'),
      toggleProvider: notYet('ToggleProvider'),
      createPayment: notYet('CreatePayment'),
      cancelPayment: notYet('CancelPayment'),
      handleWebhook: notYet('HandleWebhook'),
    });
    const bound = await server.listen('127.0.0.1:0');
    port = grpcPaymentsPort(`127.0.0.1:${bound}`, { lookupMs: 2000, paymentMs: 2000 });
  });
  afterAll(async () => {
    port?.close();
    await server.shutdown(500);
  });

  it('turns UNIMPLEMENTED into 503 PAYMENTS_UNAVAILABLE', async () => {
    await expect(
      port.listProviders({ organizationId: '0123456789abcdef01234567', testMode: false }),
    ).rejects.toMatchObject({
      kind: 'unavailable',
      httpStatus: 503,
      code: 'PAYMENTS_UNAVAILABLE',
    });
    await expect(
      port.createPayment({
        organizationId: '0123456789abcdef01234567',
        siteId: '0123456789abcdef01234567',
        providerId: '0123456789abcdef01234567',
        transactionId: '0123456789abcdef01234567',
        amount: 1,
        currency: 'EUR',
        description: 'x',
        buyerEmail: 'a@b.example',
        returnUrl: 'https://x.example',
        testMode: false,
      }),
    ).rejects.toMatchObject({ httpStatus: 503 });
  });

  it('keeps other error kinds', async () => {
    await expect(
      port.getProvider({ organizationId: '0123456789abcdef01234567', id: '0123456789abcdef01234567', testMode: false }),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});
