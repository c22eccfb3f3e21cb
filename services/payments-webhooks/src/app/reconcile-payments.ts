import { ErrorCode, isDomainError, type Logger } from '@paymesh/core';
import type { PaymentDoc } from '../domain/payment';
import type { ProviderDoc } from '../domain/provider';
import {
  isReconcileDue,
  nextReconcileAt,
  outcomeClaimId,
  reconciledOutcome,
  UNSETTLED_STATUSES,
  type ReconcileOptions,
} from '../domain/reconcile';
import { PAYMENTS, PROVIDERS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { claimAndReport, startCapture } from './handle-webhook';
import { adapterOf } from './provider-records';

/** What one look at one payment did. */
export type LookResult = 'applied' | 'duplicate' | 'unchanged' | 'taken' | 'failed';

/** Summary of one reconciler pass. */
export interface ReconcilePass {
  looked: number;
  applied: number;
  /** Whether the batch was full (more may be due right now). */
  full: boolean;
}

/**
 * One reconciler pass: takes up to `batchSize` payments whose look is due (pending or failed,
 * oldest due first) and asks the provider about each. A look first moves the payment's
 * `reconcileAt` by compare-and-set, which is the claim: of several replicas only one asks about a
 * payment per due time. What the provider reports is applied through the webhook's claimed path.
 */
export async function reconcilePayments(
  deps: PaymentsDeps,
  opts: ReconcileOptions & { batchSize: number },
): Promise<ReconcilePass> {
  const now = deps.clock.now();
  const { items } = await deps.store
    .collection<PaymentDoc>(PAYMENTS)
    .find(
      { status: { $in: [...UNSETTLED_STATUSES] }, reconcileAt: { $lte: now.toISOString() } },
      { sort: { reconcileAt: 1 }, limit: opts.batchSize },
    );
  let applied = 0;
  for (const p of items) {
    if ((await lookAt(deps, p, opts)) === 'applied') applied++;
  }
  return { looked: items.length, applied, full: items.length === opts.batchSize };
}

/**
 * The buyer approved a payment the platform captures, and the approval event was lost: capture it
 * as the approval would have (idempotent per payment at the provider, so a late approval webhook or
 * another look gets the same capture) and apply what the capture reports through the same claimed
 * path. A capture whose outcome is still open changes nothing; the next look or the webhook settles it.
 */
async function captureMissed(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  payment: PaymentDoc,
  log: Logger,
): Promise<LookResult> {
  const adapter = adapterOf(deps, provider);
  if (!adapter.capturePayment) {
    log.error(`${provider.type} reports an approval but cannot capture; not reconciled`);
    return 'failed';
  }
  // Decided against our record, not the provider's: a payment cancelled here (its transaction
  // abandoned in checkout) is never captured, even though the buyer approved it late.
  if (!(await startCapture(deps, payment.id))) {
    log.info('approved payment is no longer pending here; not captured');
    return 'unchanged';
  }
  const events = await adapter.capturePayment(payment.providerPaymentId);
  let result: LookResult = 'unchanged';
  for (const e of events) {
    const txId = e.payment?.metadata?.['transaction_id'];
    if (
      e.payment?.providerPaymentId !== payment.providerPaymentId ||
      (txId !== undefined && txId !== payment.transactionId)
    ) {
      log.error({ reported: e.payment?.providerPaymentId }, 'capture reported about another payment; not reconciled');
      return 'failed';
    }
    const outcome = e.outcome === null ? null : reconciledOutcome(payment.status, e.outcome);
    if (outcome === null) continue;
    const ok = await claimAndReport(deps, provider, payment, e, outcome, null);
    log.info(
      { outcome, providerEventId: e.eventId, duplicate: !ok },
      ok ? 'reconciler applied a missed provider outcome' : 'outcome already applied',
    );
    result = ok ? 'applied' : 'duplicate';
  }
  if (result === 'unchanged') log.debug('reconciler captured an approved payment; its outcome is still open');
  return result;
}

/** Claims the look at one payment, asks the provider, and applies a settled outcome. */
export async function lookAt(deps: PaymentsDeps, payment: PaymentDoc, opts: ReconcileOptions): Promise<LookResult> {
  const now = deps.clock.now();
  if (!isReconcileDue(payment, now)) return 'taken';
  const log = deps.logger.child({
    component: 'reconciler',
    transactionId: payment.transactionId,
    providerPaymentId: payment.providerPaymentId,
  });
  const looks = (payment.reconcileLooks ?? 0) + 1;
  let claimed: PaymentDoc;
  try {
    claimed = await deps.store.collection<PaymentDoc>(PAYMENTS).replace({
      ...payment,
      reconcileAt: nextReconcileAt(new Date(payment.createdAt), now, looks, opts),
      reconcileLooks: looks,
    });
  } catch (err) {
    // Another replica took this look, or a webhook changed the payment meanwhile: nothing to do now.
    if (isDomainError(err) && err.code === ErrorCode.VERSION_CONFLICT) return 'taken';
    throw err;
  }
  try {
    const provider = await deps.store.collection<ProviderDoc>(PROVIDERS).get(payment.providerId);
    if (!provider) {
      log.error('payment of a vanished provider record; not reconciled');
      return 'failed';
    }
    const fetched = await adapterOf(deps, provider).fetchStatus(payment.providerPaymentId);
    const txId = fetched.metadata['transaction_id'];
    if (
      fetched.providerPaymentId !== payment.providerPaymentId ||
      (txId !== undefined && txId !== payment.transactionId)
    ) {
      log.error({ fetched: fetched.providerPaymentId }, 'provider answered about another payment; not reconciled');
      return 'failed';
    }
    if (fetched.capture === true && claimed.status === 'pending')
      return await captureMissed(deps, provider, claimed, log);
    const outcome = reconciledOutcome(claimed.status, fetched.outcome);
    if (outcome === null) {
      log.debug({ providerStatus: fetched.providerStatus }, 'reconciler look: nothing new');
      return 'unchanged';
    }
    const event = {
      eventId: outcomeClaimId(payment.providerPaymentId, outcome),
      eventType: `reconcile.${fetched.providerStatus}`,
      occurredAt: now.toISOString(),
    };
    const ok = await claimAndReport(deps, provider, claimed, event, outcome, null);
    log.info(
      { outcome, providerStatus: fetched.providerStatus, duplicate: !ok },
      ok ? 'reconciler applied a missed provider outcome' : 'outcome already applied',
    );
    return ok ? 'applied' : 'duplicate';
  } catch (err) {
    // Provider unreachable or the answer unclear: never guessed; the next look (already
    // scheduled) or the webhook settles it.
    log.warn({ err }, 'reconciler look failed; will look again');
    return 'failed';
  }
}
