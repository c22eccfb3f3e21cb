import type { PaymentStatusReported } from '@paymesh/contracts';
import type { TransactionDoc } from '../domain/transaction';
import { IllegalTransitionError } from '../domain/transaction-state';
import { TRANSACTIONS } from '../store/collections';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition } from './transition';

export type PaymentStatusResult = 'applied' | 'unchanged' | 'duplicate' | 'rejected';

/**
 * Applies a provider outcome reported by payments-webhooks through the state machine, once per
 * provider event: a provider event ID already handled is ignored, a report that does not belong
 * to the transaction (organization, site, provider or payment mismatch) or that the rules forbid
 * is logged and dropped, never applied.
 */
export async function applyPaymentStatus(
  deps: PaymentsDeps,
  report: PaymentStatusReported,
): Promise<PaymentStatusResult> {
  const log = deps.logger.child({
    transactionId: report.transactionId,
    providerEventId: report.providerEventId,
    outcome: report.outcome,
  });
  const doc = await deps.store.collection<TransactionDoc>(TRANSACTIONS).get(report.transactionId);
  if (!doc) {
    log.error('payment status for an unknown transaction dropped');
    return 'rejected';
  }
  const mismatch =
    doc.organizationId !== report.organizationId
      ? 'organization'
      : doc.siteId !== report.siteId
        ? 'site'
        : doc.providerId !== report.providerId
          ? 'provider'
          : doc.providerPaymentId !== null && doc.providerPaymentId !== report.providerPaymentId
            ? 'provider payment'
            : undefined;
  if (mismatch) {
    log.error({ mismatch }, 'payment status does not belong to the transaction; dropped');
    return 'rejected';
  }
  try {
    const out = await applyTransition(
      deps,
      doc.id,
      (cur) => {
        if (cur.processedProviderEventIds.includes(report.providerEventId)) return null;
        const learnsPayment = cur.providerPaymentId === null || cur.providerPayment.state !== 'created';
        return {
          trigger: { kind: 'provider_outcome', outcome: report.outcome },
          providerEventId: report.providerEventId,
          ...(learnsPayment
            ? {
                patch: {
                  providerPaymentId: report.providerPaymentId,
                  providerPayment: { ...cur.providerPayment, state: 'created', error: null },
                },
              }
            : {}),
        };
      },
      doc,
    );
    if (out.result === 'skipped') {
      log.info('provider event already applied; ignored');
      return 'duplicate';
    }
    log.info({ status: out.doc.status, result: out.result }, 'payment status applied');
    return out.result === 'changed' ? 'applied' : 'unchanged';
  } catch (err) {
    if (err instanceof IllegalTransitionError) return 'rejected';
    throw err;
  }
}
