import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConflictError, DomainError, NotSupportedError } from '@paymesh/core';
import { ProviderError, type CreatePaymentInput, type PaymentAdapter, type ProviderErrorKind } from '../src/providers/adapter';

/** What the contract needs from a provider's sandbox. */
export interface AdapterHarness {
  adapter: () => PaymentAdapter;
  /** Completes the buyer's payment at the provider (as the buyer would on the pay page). */
  pay(providerPaymentId: string): Promise<void>;
  /** An adapter of the same type whose credentials the provider rejects. */
  rejectedCredentials(): PaymentAdapter;
  /** An adapter pointed at an address where no provider answers. */
  unreachable(): PaymentAdapter;
}

const objectId = () => randomBytes(12).toString('hex');

export function paymentInput(over: Partial<CreatePaymentInput> = {}): CreatePaymentInput {
  return {
    transactionId: objectId(),
    organizationId: objectId(),
    siteId: objectId(),
    providerId: objectId(),
    amount: 2599,
    currency: 'EUR',
    description: 'Order 42',
    buyerEmail: 'buyer@example.com',
    returnUrl: 'https://shop.example/return?tx=1',
    webhookUrl: 'http://127.0.0.1:9/hooks/test',
    ...over,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

async function expectProviderError(promise: Promise<unknown>, kind: ProviderErrorKind): Promise<ProviderError> {
  const err = await failure(promise);
  expect(err).toBeInstanceOf(ProviderError);
  expect((err as ProviderError).providerKind).toBe(kind);
  return err as ProviderError;
}

/** The behaviour every payment adapter shows against its provider's sandbox. */
export function runAdapterContract(name: string, harness: () => AdapterHarness): void {
  describe(`payment adapter contract: ${name}`, () => {
    it('creates a payment and tells where to send the buyer', async () => {
      const input = paymentInput();
      const payment = await harness().adapter().createPayment(input);
      expect(payment.providerPaymentId).toBeTruthy();
      expect(payment.outcome).toBe('pending');
      expect(payment.redirectUrl).toMatch(/^https?:\/\//);
      const status = await harness().adapter().fetchStatus(payment.providerPaymentId);
      expect(status.outcome).toBe('pending');
      expect(status.metadata).toMatchObject({
        transaction_id: input.transactionId,
        organization_id: input.organizationId,
        site_id: input.siteId,
        provider_id: input.providerId,
      });
    });

    it('is idempotent per transaction and refuses the same transaction with other parameters', async () => {
      const input = paymentInput();
      const first = await harness().adapter().createPayment(input);
      const again = await harness().adapter().createPayment(input);
      expect(again.providerPaymentId).toBe(first.providerPaymentId);
      expect(again.redirectUrl).toBe(first.redirectUrl);
      const err = await expectProviderError(harness().adapter().createPayment({ ...input, amount: input.amount + 1 }), 'idempotency');
      expect(err.kind).toBe('conflict');
    });

    it('cancels an open payment, and cancelling again still succeeds', async () => {
      const payment = await harness().adapter().createPayment(paymentInput());
      await harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('cancelled');
      await harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`);
      await harness().adapter().cancelPayment(payment.providerPaymentId, `other-key-${payment.providerPaymentId}`);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('cancelled');
    });

    it('refuses to cancel a paid payment as already captured', async () => {
      const payment = await harness().adapter().createPayment(paymentInput());
      await harness().pay(payment.providerPaymentId);
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('succeeded');
      const err = await failure(harness().adapter().cancelPayment(payment.providerPaymentId, `cancel-${payment.providerPaymentId}`));
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as ConflictError).code).toBe('PAYMENT_ALREADY_CAPTURED');
      expect((await harness().adapter().fetchStatus(payment.providerPaymentId)).outcome).toBe('succeeded');
    });

    it('reports typed failures: unknown payment, rejected credentials, unreachable provider', async () => {
      const missing = await expectProviderError(harness().adapter().fetchStatus('pi_doesNotExist000000000000'), 'not_found');
      expect(missing.kind).toBe('not_found');
      const auth = await expectProviderError(harness().rejectedCredentials().createPayment(paymentInput()), 'auth');
      expect(auth.code).toBe('PROVIDER_AUTH_FAILED');
      const down = await expectProviderError(harness().unreachable().createPayment(paymentInput()), 'retryable');
      expect(down.kind).toBe('unavailable');
    });

    it('answers refunds with NotSupported for now', async () => {
      const err = await failure(harness().adapter().refund('anything', 100, 'key'));
      expect(err).toBeInstanceOf(NotSupportedError);
      expect(err).toBeInstanceOf(DomainError);
    });
  });
}
