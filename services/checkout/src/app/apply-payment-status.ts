import type { PaymentStatusReported } from '@paymesh/contracts';
import type { TransactionDoc } from '../domain/transaction';
import { IllegalTransitionError } from '../domain/transaction-state';
import { TRANSACTIONS } from '../store/collections';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition, type TransitionPlan } from './transition';

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
  const mismatch = reportMismatch(doc, report, { paymentKnown: false });
  if (mismatch) {
    log.error({ mismatch }, 'payment status does not belong to the transaction; dropped');
    return 'rejected';
  }
  return applyProviderEvent(
    deps,
    doc,
    report.providerEventId,
    (cur) => {
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
    log,
    'payment status applied',
  );
}

/**
 * What of a provider report does not match the transaction (organization, site, provider, payment),
 * or undefined. `paymentKnown`: the transaction must already name the provider payment; otherwise
 * a transaction that names none yet accepts the report's.
 */
export function reportMismatch(
  doc: TransactionDoc,
  report: { organizationId: string; siteId: string; providerId: string; providerPaymentId: string },
  { paymentKnown }: { paymentKnown: boolean },
): string | undefined {
  if (doc.organizationId !== report.organizationId) return 'organization';
  if (doc.siteId !== report.siteId) return 'site';
  if (doc.providerId !== report.providerId) return 'provider';
  if ((paymentKnown || doc.providerPaymentId !== null) && doc.providerPaymentId !== report.providerPaymentId)
    return 'provider payment';
  return undefined;
}

/**
 * Applies a provider event's plan to the transaction through the state machine, once per provider
 * event (one already processed is a duplicate); a move the rules forbid is rejected, not applied.
 */
export async function applyProviderEvent(
  deps: PaymentsDeps,
  doc: TransactionDoc,
  providerEventId: string,
  plan: (cur: TransactionDoc) => TransitionPlan | null,
  log: PaymentsDeps['logger'],
  applied: string,
): Promise<PaymentStatusResult> {
  try {
    const out = await applyTransition(
      deps,
      doc.id,
      (cur) => (cur.processedProviderEventIds.includes(providerEventId) ? null : plan(cur)),
      doc,
    );
    if (out.result === 'skipped') {
      log.info('provider event already applied; ignored');
      return 'duplicate';
    }
    log.info({ status: out.doc.status, result: out.result }, applied);
    return out.result === 'changed' ? 'applied' : 'unchanged';
  } catch (err) {
    if (err instanceof IllegalTransitionError) return 'rejected';
    throw err;
  }
}
