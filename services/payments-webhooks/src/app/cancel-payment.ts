import { NotFoundError } from '@paymesh/core';
import { nextPaymentStatus, type PaymentDoc } from '../domain/payment';
import type { ProviderDoc } from '../domain/provider';
import { idempotencyKey } from '../providers/adapter';
import { PAYMENTS, PROVIDERS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { adapterOf } from './provider-records';

export interface CancelPaymentCommand {
  organizationId: string;
  providerId: string;
  transactionId: string;
}

/**
 * Cancels the provider payment of a transaction. Idempotent: cancelling an already cancelled
 * payment succeeds. Works for disabled and deleted provider records too, so turning a provider off
 * never strands a payment that is still open.
 *
 * @throws NotFoundError when no payment was started for the transaction with this provider.
 * @throws ConflictError code PAYMENT_ALREADY_CAPTURED when the provider already took the money.
 */
export async function cancelPayment(deps: PaymentsDeps, cmd: CancelPaymentCommand): Promise<void> {
  const payments = deps.store.collection<PaymentDoc>(PAYMENTS);
  const payment = await payments.findOne({ transactionId: cmd.transactionId });
  if (!payment || payment.organizationId !== cmd.organizationId || payment.providerId !== cmd.providerId) {
    throw new NotFoundError('payment not found');
  }
  const provider = await deps.store.collection<ProviderDoc>(PROVIDERS).get(payment.providerId);
  if (!provider || provider.organizationId !== cmd.organizationId) throw new NotFoundError('provider not found');

  const adapter = adapterOf(deps, provider);
  await adapter.cancelPayment(payment.providerPaymentId, idempotencyKey(payment.transactionId, 'cancel'));

  await payments.update(payment.id, (cur) => {
    const status = nextPaymentStatus(cur.status, 'cancelled');
    if (status === cur.status) return null;
    const { id: _id, version: _v, ...rest } = cur;
    return { ...rest, status, updatedAt: deps.clock.now().toISOString() };
  });
  deps.logger.info({ transactionId: payment.transactionId, providerPaymentId: payment.providerPaymentId }, 'provider payment cancelled');
}
