import { ConflictError, ErrorCode, NotFoundError } from '@paymesh/core';
import { mayCloseAsCancelled, nextPaymentStatus, type PaymentDoc } from '../domain/payment';
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
 * For providers the platform captures (provider_d) the adapter accepts the cancel of a payment the
 * buyer has not approved without a call that voids it (there is none); what then closes it is the
 * compare-and-set below, which stores it `cancelled` unless a capture was started meanwhile. Both
 * capture paths (approval webhook, reconciler) start a capture by compare-and-set on a pending
 * payment only, so exactly one of the two wins: a cancelled payment is never captured, and a
 * payment being captured is never reported cancelled.
 *
 * @throws NotFoundError when no payment was started for the transaction with this provider.
 * @throws ConflictError code PAYMENT_ALREADY_CAPTURED when the provider already took the money;
 * code CANCEL_REFUSED when the provider cannot cancel it or a capture was started.
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
    if (!mayCloseAsCancelled(cur)) {
      throw new ConflictError(
        'the payment is being captured after the buyer approved it; it settles through its capture',
        { code: ErrorCode.CANCEL_REFUSED },
      );
    }
    const status = nextPaymentStatus(cur.status, 'cancelled');
    if (status === cur.status) return null;
    return { ...cur, status, updatedAt: deps.clock.now().toISOString() };
  });
  deps.logger.info(
    { transactionId: payment.transactionId, providerPaymentId: payment.providerPaymentId },
    'provider payment cancelled',
  );
}
