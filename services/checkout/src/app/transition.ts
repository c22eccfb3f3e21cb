import { currentRequestId, NotFoundError, type Logger } from '@paymesh/core';
import { eventId, type CommitScope } from '@paymesh/bus';
import { Subjects, type EventMap, type TransactionStatusChanged, TransactionStatus } from '@paymesh/contracts';
import type { CheckoutDoc } from '../domain/checkout';
import type { StatusHistoryEntry, TransactionDoc } from '../domain/transaction';
import {
  IllegalTransitionError,
  initialState,
  transition,
  triggerName,
  type CreationTrigger,
  type Trigger,
  type TxStatus,
} from '../domain/transaction-state';
import { CHECKOUTS, TRANSACTIONS } from '../store/collections';
import { addToBuckets, withAggregates } from './dashboard-aggregates';
import type { PaymentsDeps } from './payments-deps';

export type TxScope = CommitScope<EventMap>;

/** What to apply to a transaction, decided from its current document. */
export interface TransitionPlan {
  trigger: Trigger;
  providerEventId?: string | null;
  reason?: string | null;
  /** Other fields written together with the transition (e.g. the provider payment ID). */
  patch?: Partial<Omit<TransactionDoc, 'id' | 'version'>>;
  /** Further events enqueued with the write (only when something is written). */
  emit?: (tx: TxScope, stored: TransactionDoc, at: string) => void;
  /** Further documents written in the same store transaction (only when the transaction is written). */
  write?: (tx: TxScope, stored: TransactionDoc, at: string) => Promise<void>;
}

export interface TransitionOutcome {
  doc: TransactionDoc;
  /** changed: written; unchanged: idempotent repeat; skipped: the plan declined (e.g. duplicate event). */
  result: 'changed' | 'unchanged' | 'skipped';
}

/**
 * Emits the event of the transaction's current status: `checkout.transaction.status_changed`, or
 * for a buyer transaction's first status (pending, 0) `checkout.transaction.opened` (same data,
 * sequence 1), which the status consumers (billing, tax, notifications-ipn) do not act on and so
 * do not receive.
 */
function emitStatusChanged(tx: TxScope, doc: TransactionDoc, previousStatus: TxStatus | null, at: string): void {
  const data: TransactionStatusChanged = {
    organizationId: doc.organizationId,
    siteId: doc.siteId,
    transactionId: doc.id,
    mode: doc.mode,
    status: doc.status,
    previousStatus,
    subState: doc.subState,
    externalReference: doc.externalReference,
    ipnUrl: doc.ipnUrl,
    sequence: doc.statusSequence,
    changedAt: at,
    amount: doc.amount,
    currency: doc.currency,
    // The tax ledger records the sale from the event alone (no lookup back into checkout).
    tax: doc.tax ?? null,
    taxInput: doc.taxInput ?? null,
    checkoutId: doc.checkoutId,
    invoiceId: doc.taxSource?.kind === 'invoice' ? doc.taxSource.invoiceId : null,
    refunds: (doc.refunds ?? []).map((r) => ({ refundId: r.id, amount: r.amount })),
  };
  const subject =
    previousStatus === null && doc.status === TransactionStatus.pending
      ? Subjects.transactionOpened
      : Subjects.transactionStatusChanged;
  tx.emit(subject, data, { id: eventId(subject, doc.id, doc.statusSequence), occurredAt: at });
}

/**
 * Marks the transaction's checkout paid (first completed transaction wins). A session the sweep
 * stored as expired is completed too: its provider took the money after all (the payment was
 * beyond cancelling when the session expired), and a paid session reads paid.
 */
async function completeCheckout(tx: TxScope, doc: TransactionDoc, at: string, logger: Logger): Promise<void> {
  if (!doc.checkoutId) return;
  const checkouts = tx.collection<CheckoutDoc>(CHECKOUTS);
  const checkout = await checkouts.get(doc.checkoutId);
  if (!checkout) return;
  if (checkout.status === 'completed') {
    if (checkout.completedTransactionId !== doc.id) {
      logger.warn(
        { checkoutId: checkout.id, transactionId: doc.id, completedTransactionId: checkout.completedTransactionId },
        'second completed transaction for one checkout session',
      );
    }
    return;
  }
  await checkouts.replace({
    ...checkout,
    status: 'completed',
    completedTransactionId: doc.id,
    updatedAt: at,
  });
}

/**
 * Notes on the transaction's checkout that one of its attempts ended (failed or canceled): the
 * next attempt then looks for earlier provider payments to cancel (see create-transaction.ts).
 */
async function noteEndedAttempt(tx: TxScope, doc: TransactionDoc, at: string): Promise<void> {
  if (!doc.checkoutId) return;
  const checkouts = tx.collection<CheckoutDoc>(CHECKOUTS);
  const checkout = await checkouts.get(doc.checkoutId);
  if (!checkout || checkout.attemptsEnded !== false) return;
  await checkouts.replace({ ...checkout, attemptsEnded: true, updatedAt: at });
}

function historyEntry(
  from: TxStatus | null,
  doc: Pick<TransactionDoc, 'status' | 'subState'>,
  trigger: string,
  at: string,
  extra: { providerEventId?: string | null | undefined; reason?: string | null | undefined },
): StatusHistoryEntry {
  return {
    from,
    to: doc.status,
    subState: doc.subState,
    trigger,
    at,
    providerEventId: extra.providerEventId ?? null,
    requestId: currentRequestId() ?? null,
    reason: extra.reason ?? null,
  };
}

/**
 * Stores a new transaction in its initial state and enqueues its first status event (sequence 1)
 * in the same store transaction. Buyer transactions start pending and manual ones carry no
 * checkout, so creation never completes a checkout.
 */
export async function insertTransaction(
  tx: TxScope,
  doc: Omit<
    TransactionDoc,
    'id' | 'version' | 'status' | 'subState' | 'statusSequence' | 'statusHistory' | 'processedProviderEventIds'
  > & {
    id: string;
  },
  trigger: CreationTrigger,
  reason: string | null = null,
): Promise<TransactionDoc> {
  const state = initialState(trigger);
  const first = historyEntry(null, state, triggerName(trigger), doc.createdAt, { reason });
  const stored = await tx.collection<TransactionDoc>(TRANSACTIONS).insert(
    withAggregates({
      ...doc,
      ...state,
      openCheckoutId: state.status === TransactionStatus.pending ? doc.openCheckoutId : null,
      statusSequence: 1,
      statusHistory: [first],
      processedProviderEventIds: [],
    }),
  );
  await addToBuckets(tx, null, stored);
  emitStatusChanged(tx, stored, null, doc.createdAt);
  return stored;
}

/**
 * Loads a transaction, asks `plan` what to apply, runs it through the state machine and writes the
 * result with compare-and-set, all in one store transaction: when the integer status moves,
 * `checkout.transaction.status_changed` (sequence = number of statuses so far) is enqueued with it,
 * and a transaction reaching completed marks its checkout paid. Retries on version conflicts.
 *
 * @throws IllegalTransitionError (logged, nothing written) when the rules forbid the move.
 */
export async function applyTransition(
  deps: PaymentsDeps,
  transactionId: string,
  plan: (doc: TransactionDoc) => TransitionPlan | null,
  /** The transaction as the caller just read it: tried first, saving a read (see below). */
  held?: TransactionDoc,
): Promise<TransitionOutcome> {
  let tentative = held;
  const outcome = await deps.outbox.commit(async (tx): Promise<TransitionOutcome> => {
    const txs = tx.collection<TransactionDoc>(TRANSACTIONS);
    // A held document is only trusted for a write, whose compare-and-set proves it current (a
    // conflict re-runs the commit, reading). A decision to write nothing is taken on a fresh read.
    const first = tentative;
    tentative = undefined;
    if (first) {
      const out = await decide(tx, first, true);
      if (out) return out;
    }
    const out = await decide(tx, await txs.get(transactionId), false);
    if (!out) throw new Error('unreachable: a fresh read always decides');
    return out;
  });
  if (outcome.result === 'changed') {
    deps.logger.info(
      {
        transactionId,
        status: outcome.doc.status,
        subState: outcome.doc.subState,
        organizationId: outcome.doc.organizationId,
      },
      'transaction state changed',
    );
  }
  return outcome;

  /** Applies the plan to `doc`; undefined when `tentative` and nothing would be written. */
  async function decide(
    tx: TxScope,
    doc: TransactionDoc | null,
    tentative: boolean,
  ): Promise<TransitionOutcome | undefined> {
    const txs = tx.collection<TransactionDoc>(TRANSACTIONS);
    if (!doc || doc.deletedAt) {
      if (tentative) return undefined;
      throw new NotFoundError('transaction not found');
    }
    const p = plan(doc);
    if (!p) return tentative ? undefined : { doc, result: 'skipped' };
    const from = { status: doc.status, subState: doc.subState };
    let res;
    try {
      res = transition(from, p.trigger);
    } catch (err) {
      if (tentative && err instanceof IllegalTransitionError) return undefined; // judged again on a fresh read
      if (err instanceof IllegalTransitionError) {
        deps.logger.warn(
          {
            transactionId,
            status: doc.status,
            subState: doc.subState,
            trigger: err.trigger,
            providerEventId: p.providerEventId,
          },
          'illegal transaction transition rejected',
        );
      }
      throw err;
    }
    const now = deps.clock.now().toISOString();
    const processedProviderEventIds = p.providerEventId
      ? [...doc.processedProviderEventIds, p.providerEventId]
      : doc.processedProviderEventIds;
    if (res.kind === 'unchanged') {
      if (!p.patch) return tentative ? undefined : { doc, result: 'unchanged' };
      const stored = await txs.replace(
        withAggregates({ ...doc, ...p.patch, processedProviderEventIds, updatedAt: now }),
      );
      await addToBuckets(tx, doc.aggregated, stored);
      p.emit?.(tx, stored, now);
      await p.write?.(tx, stored, now);
      return { doc: stored, result: 'unchanged' };
    }
    const next = res.next;
    const stored = await txs.replace(
      withAggregates({
        ...doc,
        ...p.patch,
        status: next.status,
        subState: next.subState,
        statusSequence: res.statusChanged ? doc.statusSequence + 1 : doc.statusSequence,
        statusHistory: [...doc.statusHistory, historyEntry(doc.status, next, triggerName(p.trigger), now, p)],
        processedProviderEventIds,
        openCheckoutId: next.status === TransactionStatus.pending ? doc.openCheckoutId : null,
        updatedAt: now,
      }),
    );
    await addToBuckets(tx, doc.aggregated, stored);
    if (res.statusChanged) emitStatusChanged(tx, stored, doc.status, now);
    p.emit?.(tx, stored, now);
    await p.write?.(tx, stored, now);
    if (res.statusChanged && next.status === TransactionStatus.completed)
      await completeCheckout(tx, stored, now, deps.logger);
    if (res.statusChanged && (next.status === TransactionStatus.failed || next.status === TransactionStatus.canceled))
      await noteEndedAttempt(tx, stored, now);
    return { doc: stored, result: 'changed' };
  }
}
