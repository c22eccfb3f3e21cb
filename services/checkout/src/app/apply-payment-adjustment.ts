import { eventId } from '@paymesh/bus';
import { Subjects, type PaymentAdjustmentReported, type TransactionRefunded } from '@paymesh/contracts';
import { defaultRiskSettings, type RiskSettings } from '../domain/customer-hold';
import { isFinalChargeback, moneyBackFields, type TransactionDoc, type TransactionRefund } from '../domain/transaction';
import { TRANSACTIONS } from '../store/collections';
import { applyProviderEvent, reportMismatch, type PaymentStatusResult } from './apply-payment-status';
import type { PaymentsDeps } from './payments-deps';
import { chargebackPlan } from './chargeback-plan';
import { riskSettingsOf } from './risk-settings';
import type { TransitionPlan } from './transition';

type Refund = Extract<PaymentAdjustmentReported['adjustment'], { kind: 'refund' }>;
type Dispute = Extract<PaymentAdjustmentReported['adjustment'], { kind: 'dispute' }>;

/**
 * Records a refund or a dispute reported by payments-webhooks on the transaction, once per provider
 * event, through the state machine:
 * - refund: added to `refunds` once per provider refund id and announced as
 *   `checkout.transaction.refunded` in the same store transaction (billing's credit note, the tax
 *   ledger's reversal); a refund, partial or full, never changes the status (the operator marks a
 *   fully refunded transaction refunded, see `update-transaction.ts`);
 * - dispute: the chargeback record is created or updated (a final state is never changed again);
 *   open / under_review / lost / accepted -> 4, won -> back to 1. Reaching won, lost or accepted
 *   enqueues `checkout.chargeback.resolved` once, in the same store transaction; the buyer flags
 *   and the customer risk hold follow (see chargeback-plan.ts).
 * A report that does not belong to the transaction is logged and dropped.
 */
export async function applyPaymentAdjustment(
  deps: PaymentsDeps,
  report: PaymentAdjustmentReported,
): Promise<PaymentStatusResult> {
  const a = report.adjustment;
  const log = deps.logger.child({
    transactionId: report.transactionId,
    providerEventId: report.providerEventId,
    adjustment: a.kind,
  });
  const doc = await deps.store.collection<TransactionDoc>(TRANSACTIONS).get(report.transactionId);
  const mismatch = !doc ? 'transaction' : reportMismatch(doc, report, { paymentKnown: true });
  if (!doc || mismatch) {
    log.error({ mismatch }, 'refund or dispute does not belong to a transaction; dropped');
    return 'rejected';
  }
  // The hold policy in force when the outcome is recorded decides the hold.
  const risk =
    a.kind === 'dispute' ? await riskSettingsOf(deps, { organizationId: doc.organizationId, mode: doc.mode }) : null;
  return applyProviderEvent(
    deps,
    doc,
    report.providerEventId,
    (cur) =>
      a.kind === 'refund' ? refundPlan(cur, a, report) : disputePlan(cur, a, report, risk ?? defaultRiskSettings()),
    log,
    'refund or dispute recorded',
  );
}

function refundPlan(cur: TransactionDoc, r: Refund, report: PaymentAdjustmentReported): TransitionPlan {
  const refunds = cur.refunds ?? [];
  const known = refunds.some((x) => x.id === r.refundId);
  const refund: TransactionRefund = {
    id: r.refundId,
    amount: r.amount,
    currency: r.currency,
    at: report.occurredAt,
    providerEventId: report.providerEventId,
  };
  const next = known ? refunds : [...refunds, refund];
  const recorded = next.reduce((n, x) => n + x.amount, 0);
  // The provider's running total covers refunds whose events are still on their way.
  const full = Math.max(recorded, r.refundedTotal) >= cur.amount;
  return {
    trigger: { kind: 'provider_refund', full },
    providerEventId: report.providerEventId,
    reason: `refund ${r.refundId} of ${r.amount} ${r.currency}`,
    patch: { refunds: next },
    ...(known ? {} : { emit: (tx, stored, at) => emitRefunded(tx, stored, refund, recorded, at) }),
  };
}

/** Announces a newly recorded refund (event id from transaction and refund id: once per refund). */
function emitRefunded(
  tx: Parameters<NonNullable<TransitionPlan['emit']>>[0],
  doc: TransactionDoc,
  r: TransactionRefund,
  refundedTotal: number,
  at: string,
): void {
  const data: TransactionRefunded = {
    ...moneyBackFields(doc),
    refundId: r.id,
    amount: r.amount,
    currency: r.currency,
    refundedTotal,
    refundedAt: r.at,
  };
  tx.emit(Subjects.transactionRefunded, data, {
    id: eventId(Subjects.transactionRefunded, doc.id, r.id),
    occurredAt: at,
  });
}

function disputePlan(
  cur: TransactionDoc,
  d: Dispute,
  report: PaymentAdjustmentReported,
  risk: RiskSettings,
): TransitionPlan {
  const existing = (cur.chargebacks ?? []).find((c) => c.id === d.disputeId);
  if (existing && isFinalChargeback(existing.status)) {
    // Decided already: a late or repeated report changes nothing (only the event id is kept).
    return {
      trigger: { kind: 'provider_dispute', status: existing.status },
      providerEventId: report.providerEventId,
      patch: {},
    };
  }
  return chargebackPlan(
    cur,
    {
      id: d.disputeId,
      status: d.status,
      amount: d.amount,
      currency: d.currency,
      reason: d.reason,
      at: report.occurredAt,
      decidedBy: 'provider',
    },
    { trigger: { kind: 'provider_dispute', status: d.status }, providerEventId: report.providerEventId, risk },
  );
}
