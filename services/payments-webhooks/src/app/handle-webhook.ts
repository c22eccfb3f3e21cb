import { DomainError, ErrorCode, isDomainError, isObjectId, ValidationError } from '@paymesh/core';
import { eventId, type CommitScope } from '@paymesh/bus';
import {
  paymentAdjustmentReported,
  paymentStatusReported,
  Subjects,
  type EventMap,
  type PaymentStatusReported,
} from '@paymesh/contracts';
import { mayCapture, nextPaymentStatus, type PaymentDoc, type PaymentOutcome } from '../domain/payment';
import { claimsOutcome, outcomeClaimId } from '../domain/reconcile';
import { isProviderType, type ProviderDoc } from '../domain/provider';
import type { EventClaimDoc, MandateDoc, WebhookOutcome, WebhookReceiptDoc } from '../domain/webhook';
import type { ProviderWebhookEvent } from '../providers/adapter';
import { EVENT_CLAIMS, MANDATES, PAYMENTS, PROVIDERS, WEBHOOK_RECEIPTS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { adapterOf } from './provider-records';

export interface WebhookDelivery {
  providerType: string;
  providerId: string;
  rawBody: Buffer;
  /** Lower-cased header names. */
  headers: Record<string, string>;
}

export interface WebhookResult {
  outcome: WebhookOutcome;
  eventId: string;
}

/** Every rejection looks the same to the sender: 400 with a reason, nothing stored. */
function rejected(reason: string): ValidationError {
  return new ValidationError(`webhook rejected: ${reason}`);
}

/**
 * Verifies an inbound provider webhook and, for a payment outcome, claims the provider event and
 * enqueues `payments.payment.status_reported` in one store transaction: a duplicate delivery
 * (sequential or concurrent) is claimed exactly once, and a crash after the commit loses nothing
 * because the event waits in the outbox.
 *
 * @throws ValidationError (HTTP 400) on unknown provider, type mismatch, failed signature,
 * mode mismatch, unparseable payload or a payment that does not belong to the provider record.
 */
export async function handleWebhook(deps: PaymentsDeps, delivery: WebhookDelivery): Promise<WebhookResult> {
  if (!isProviderType(delivery.providerType) || !isObjectId(delivery.providerId)) throw rejected('unknown provider');
  const provider = await deps.store.collection<ProviderDoc>(PROVIDERS).get(delivery.providerId);
  // Disabled and deleted records still verify webhooks: payments started through them must settle.
  if (!provider || provider.type !== delivery.providerType) throw rejected('unknown provider');

  const adapter = adapterOf(deps, provider);
  const receivedAt = deps.clock.now();
  const events = await adapter.verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, receivedAt });
  if (events.length === 0) throw rejected('the delivery reports no event');
  // Everything is checked before anything is written: a delivery is applied whole or rejected whole.
  const checked: Array<{ event: ProviderWebhookEvent; payment: PaymentDoc | null }> = [];
  for (const event of events) {
    if (event.live !== (provider.mode === 'live')) throw rejected('event mode does not match the provider record');
    // Any payment an event names must be ours, also when the event has no effect.
    checked.push({ event, payment: event.payment ? await ownedPayment(deps, provider, event.payment) : null });
  }
  const results: WebhookResult[] = [];
  for (const { event, payment } of checked) {
    results.push(
      payment !== null && event.capture === true
        ? await captureApproved(deps, provider, delivery, receivedAt, event, payment)
        : await applyEvent(deps, provider, delivery, receivedAt, event, payment),
    );
  }
  // One answer per delivery: accepted when any event took effect, else duplicate, else ignored.
  return (
    results.find((r) => r.outcome === 'accepted') ??
    results.find((r) => r.outcome === 'duplicate') ??
    (results[0] as WebhookResult)
  );
}

/**
 * A buyer's approval of a payment the merchant captures: the approval is claimed first (with its
 * receipt), then the payment is captured and what the capture reports is applied like any event
 * (each with its own claim). A capture is idempotent per payment at the provider, so a repeated
 * approval whose payment is still unsettled (a crash between claim and capture) captures again
 * and gets the same capture; once the payment settled, a repeat is only a duplicate.
 */
async function captureApproved(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  delivery: WebhookDelivery,
  receivedAt: Date,
  event: ProviderWebhookEvent,
  payment: PaymentDoc,
): Promise<WebhookResult> {
  const adapter = adapterOf(deps, provider);
  if (!adapter.capturePayment)
    throw new DomainError('internal', `${provider.type} reports approvals but cannot capture`);
  const receipt = receiptOf(provider, delivery, receivedAt, event);
  const claimed = await claim(deps, provider, payment.transactionId, event, receipt('accepted'), () => undefined);
  if (!claimed) await deps.store.collection<WebhookReceiptDoc>(WEBHOOK_RECEIPTS).insert(receipt('duplicate'));
  if (!(await startCapture(deps, payment.id))) {
    deps.logger.info(
      { providerId: provider.id, providerEventId: event.eventId, transactionId: payment.transactionId },
      'approval of a payment no longer pending here; not captured',
    );
    return { outcome: claimed ? 'accepted' : 'duplicate', eventId: event.eventId };
  }
  const captured = await adapter.capturePayment(payment.providerPaymentId);
  let outcome: WebhookOutcome = claimed ? 'accepted' : 'duplicate';
  for (const e of captured) {
    const owned = e.payment ? await ownedPayment(deps, provider, e.payment) : null;
    const r = await applyEvent(deps, provider, delivery, receivedAt, e, owned);
    if (r.outcome === 'accepted') outcome = 'accepted';
  }
  deps.logger.info(
    { providerId: provider.id, providerEventId: event.eventId, transactionId: payment.transactionId, outcome },
    'approved payment captured',
  );
  return { outcome, eventId: event.eventId };
}

/**
 * Starts a capture: records `captureStartedAt` by compare-and-set while the payment is pending here
 * and answers whether the capture may go ahead. A cancel (cancel-payment.ts) closes the payment by
 * compare-and-set too, so of a capture and a cancel racing exactly one wins. A capture started
 * before (a crash between this and the provider's answer) may go ahead again: the provider's
 * capture is idempotent per payment.
 */
export async function startCapture(deps: PaymentsDeps, paymentId: string): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  try {
    const doc = await deps.store.collection<PaymentDoc>(PAYMENTS).update(paymentId, (cur) => {
      if (!mayCapture(cur) || cur.captureStartedAt) return null;
      return { ...cur, captureStartedAt: now, updatedAt: now };
    });
    return mayCapture(doc);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'not_found') return false;
    throw err;
  }
}

function receiptOf(provider: ProviderDoc, delivery: WebhookDelivery, receivedAt: Date, event: ProviderWebhookEvent) {
  return (outcome: WebhookOutcome): Omit<WebhookReceiptDoc, 'id' | 'version'> => ({
    providerId: provider.id,
    providerType: provider.type,
    organizationId: provider.organizationId,
    mode: provider.mode,
    providerEventId: event.eventId,
    eventType: event.eventType,
    outcome,
    receivedAt: receivedAt.toISOString(),
    rawBody: delivery.rawBody.toString('utf8'),
  });
}

/** Claims one verified event and enqueues its report; receipts record every outcome. */
async function applyEvent(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  delivery: WebhookDelivery,
  receivedAt: Date,
  event: ProviderWebhookEvent,
  payment: PaymentDoc | null,
): Promise<WebhookResult> {
  const log = deps.logger.child({
    providerId: provider.id,
    providerEventId: event.eventId,
    eventType: event.eventType,
  });
  const receipt = receiptOf(provider, delivery, receivedAt, event);

  if (payment !== null && event.adjustment !== null) {
    const data = paymentAdjustmentReported.parse({
      ...reportBase(provider, payment, event),
      adjustment: event.adjustment,
    });
    const claimed = await claim(deps, provider, payment.transactionId, event, receipt('accepted'), (tx) => {
      tx.emit(Subjects.paymentAdjustmentReported, data, {
        id: eventId(Subjects.paymentAdjustmentReported, provider.id, event.eventId),
        occurredAt: event.occurredAt,
      });
    });
    return settled(claimed, { transactionId: payment.transactionId, adjustment: event.adjustment.kind });
  }

  if (payment !== null && event.outcome !== null) {
    const claimed = await claimAndReport(deps, provider, payment, event, event.outcome, receipt('accepted'));
    return settled(claimed, { transactionId: payment.transactionId, outcome: event.outcome });
  }

  if (event.mandate) {
    const claimed = await claimMandate(deps, provider, event, event.mandate, receipt('accepted'));
    return settled(claimed, { mandate: event.mandate.providerMandateId, status: event.mandate.status });
  }

  await deps.store.collection<WebhookReceiptDoc>(WEBHOOK_RECEIPTS).insert(receipt('ignored'));
  log.info('provider event acknowledged without effect');
  return { outcome: 'ignored', eventId: event.eventId };

  async function settled(claimed: boolean, fields: Record<string, unknown>): Promise<WebhookResult> {
    if (!claimed) {
      await deps.store.collection<WebhookReceiptDoc>(WEBHOOK_RECEIPTS).insert(receipt('duplicate'));
      log.info('duplicate provider event delivery');
      return { outcome: 'duplicate', eventId: event.eventId };
    }
    log.info(fields, 'provider event reported');
    return { outcome: 'accepted', eventId: event.eventId };
  }
}

const FINAL_MANDATE: ReadonlySet<string> = new Set(['cancelled', 'failed', 'expired']);

/**
 * Claims a mandate event and records the mandate's state in the same store transaction; a mandate
 * in a final state keeps it (events may arrive out of order). False when claimed before.
 */
function claimMandate(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  event: ProviderWebhookEvent,
  mandate: NonNullable<ProviderWebhookEvent['mandate']>,
  receipt: Omit<WebhookReceiptDoc, 'id' | 'version'>,
): Promise<boolean> {
  return claim(deps, provider, null, event, receipt, async (tx, now) => {
    const mandates = tx.collection<MandateDoc>(MANDATES);
    const current = await mandates.findOne({ providerId: provider.id, providerMandateId: mandate.providerMandateId });
    if (!current) {
      await mandates.insert({
        providerId: provider.id,
        organizationId: provider.organizationId,
        mode: provider.mode,
        providerMandateId: mandate.providerMandateId,
        status: mandate.status,
        lastEventId: event.eventId,
        lastEventAt: event.occurredAt,
        createdAt: now,
        updatedAt: now,
      });
    } else if (!FINAL_MANDATE.has(current.status)) {
      await mandates.replace({
        ...current,
        status: mandate.status,
        lastEventId: event.eventId,
        lastEventAt: event.occurredAt,
        updatedAt: now,
      });
    }
  });
}

/** The fields every report of a provider event carries. */
function reportBase(provider: ProviderDoc, payment: PaymentDoc, event: ReportedEvent) {
  return {
    organizationId: payment.organizationId,
    siteId: payment.siteId,
    transactionId: payment.transactionId,
    providerId: provider.id,
    providerType: provider.type,
    providerPaymentId: payment.providerPaymentId,
    providerEventId: event.eventId,
    providerEventType: event.eventType,
    occurredAt: event.occurredAt,
  };
}

/**
 * Claims the event (for the transaction it is about, if any) and, in the same store transaction,
 * records its receipt and does `work` (enqueues reports, records a mandate); false when it was
 * claimed before (a duplicate delivery).
 */
async function claim(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  transactionId: string | null,
  event: ProviderWebhookEvent,
  receipt: Omit<WebhookReceiptDoc, 'id' | 'version'>,
  work: (tx: CommitScope<EventMap>, now: string) => void | Promise<void>,
): Promise<boolean> {
  try {
    await deps.outbox.commit(async (tx) => {
      const now = deps.clock.now().toISOString();
      await tx.collection<EventClaimDoc>(EVENT_CLAIMS).insert({
        providerId: provider.id,
        providerEventId: event.eventId,
        eventType: event.eventType,
        transactionId,
        claimedAt: now,
      });
      await tx.collection<WebhookReceiptDoc>(WEBHOOK_RECEIPTS).insert(receipt);
      await work(tx, now);
    });
    return true;
  } catch (err) {
    if (isDomainError(err) && err.code === ErrorCode.DUPLICATE_KEY) return false;
    throw err;
  }
}

/** The stored payment the event is about, checked against the provider record and its metadata. */
async function ownedPayment(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  ref: NonNullable<ProviderWebhookEvent['payment']>,
): Promise<PaymentDoc> {
  const payment = await deps.store
    .collection<PaymentDoc>(PAYMENTS)
    .findOne({ providerId: provider.id, providerPaymentId: ref.providerPaymentId });
  if (!payment || payment.organizationId !== provider.organizationId || payment.mode !== provider.mode) {
    throw rejected('payment does not belong to this provider');
  }
  const m = ref.metadata;
  if (m === null) return payment; // the event's object carries none of our metadata (a dispute)
  if (
    m.transaction_id !== payment.transactionId ||
    m.organization_id !== payment.organizationId ||
    m.site_id !== payment.siteId ||
    m.provider_id !== provider.id
  ) {
    throw rejected('payment metadata does not match the stored payment');
  }
  return payment;
}

/** What {@link claimAndReport} reports: a verified webhook event or a reconciler look. */
export type ReportedEvent = Pick<ProviderWebhookEvent, 'eventId' | 'eventType' | 'occurredAt'>;

/**
 * Claims the event and enqueues its report atomically; false when it was claimed before. The
 * one apply path of webhooks and the reconciler: a final outcome (succeeded, cancelled) also takes
 * the payment's outcome claim, so the same outcome learnt twice (a webhook after the reconciler,
 * or a webhook event with another id) is a duplicate. `receipt` null: no webhook receipt (a look).
 */
export async function claimAndReport(
  deps: PaymentsDeps,
  provider: ProviderDoc,
  payment: PaymentDoc,
  event: ReportedEvent,
  outcome: PaymentOutcome,
  receipt: Omit<WebhookReceiptDoc, 'id' | 'version'> | null,
): Promise<boolean> {
  const data: PaymentStatusReported = paymentStatusReported.parse({ ...reportBase(provider, payment, event), outcome });
  const now = deps.clock.now().toISOString();
  const outcomeClaim = outcomeClaimId(payment.providerPaymentId, outcome);
  // The payment read by the caller is used for the first compare-and-set; a re-run after a
  // version conflict reads it again.
  let held: PaymentDoc | null = payment;
  try {
    await deps.outbox.commit(async (tx) => {
      const claims = tx.collection<EventClaimDoc>(EVENT_CLAIMS);
      const claimed = {
        providerId: provider.id,
        eventType: event.eventType,
        transactionId: payment.transactionId,
        claimedAt: now,
      };
      // The event's claim and the outcome's claim in one statement: either taken rolls back both.
      const taken = [{ ...claimed, providerEventId: event.eventId }];
      if (claimsOutcome(outcome) && event.eventId !== outcomeClaim)
        taken.push({ ...claimed, providerEventId: outcomeClaim });
      await claims.insertMany(taken);
      const payments = tx.collection<PaymentDoc>(PAYMENTS);
      const current = held ?? (await payments.get(payment.id));
      held = null;
      if (!current) throw new DomainError('internal', `payment ${payment.id} vanished`);
      const status = nextPaymentStatus(current.status, outcome);
      await payments.replace({
        ...current,
        status,
        lastEventAt: event.occurredAt,
        updatedAt: now,
      });
      if (receipt) await tx.collection<WebhookReceiptDoc>(WEBHOOK_RECEIPTS).insert(receipt);
      tx.emit(Subjects.paymentStatusReported, data, {
        id: eventId(Subjects.paymentStatusReported, provider.id, event.eventId),
        occurredAt: event.occurredAt,
      });
    });
    return true;
  } catch (err) {
    // Claimed before: a duplicate delivery. (Version conflicts were re-run by the commit.)
    if (isDomainError(err) && err.code === ErrorCode.DUPLICATE_KEY) return false;
    throw err;
  }
}
