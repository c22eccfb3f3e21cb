import { eventId } from '@paymesh/bus';
import { Subjects, type CheckoutSessionExpired, TransactionStatus } from '@paymesh/contracts';
import { isSessionExpiryDue, type CheckoutDoc } from '../domain/checkout';
import type { TransactionDoc } from '../domain/transaction';
import { CHECKOUTS, TRANSACTIONS } from '../store/collections';
import { expireTransaction, type ExpiryOptions, type ExpiryResult } from './expire-transactions';
import type { PaymentsDeps } from './payments-deps';

/** What sweeping one session did: `taken` when it was no longer due (paid, swept by another replica). */
export type SessionExpiryResult = { result: 'expired'; transaction: ExpiryResult | null } | { result: 'taken' };

/**
 * One session sweep pass: pending sessions whose `expiresAt` has passed (oldest first, up to
 * `batchSize`) are stored as expired. See {@link expireSession}.
 */
export async function expireSessions(
  deps: PaymentsDeps,
  opts: ExpiryOptions,
): Promise<{ looked: number; expired: number; full: boolean }> {
  const now = deps.clock.now().toISOString();
  const { items } = await deps.store
    .collection<CheckoutDoc>(CHECKOUTS)
    .find({ status: 'pending', expiresAt: { $lte: now } }, { sort: { expiresAt: 1 }, limit: opts.batchSize });
  let expired = 0;
  for (const doc of items) {
    if ((await expireSession(deps, doc.id, opts)).result === 'expired') expired++;
  }
  return { looked: items.length, expired, full: items.length === opts.batchSize };
}

/**
 * Stores one due session as expired. In one store transaction, by compare-and-set on the session:
 * the status becomes `expired`, `checkout.session.expired` is enqueued, and the session's
 * transaction still pending, if any (and not waiting for an asynchronous provider flow), is made
 * due for transaction expiry now (its `expireAt` is brought forward). A crash after the commit loses nothing: the transaction expiry worker finds
 * that transaction on its next pass. The transaction is then abandoned right away through the
 * same path as any abandoned transaction (provider cancels first; -2 and its IPN only then; a
 * provider that took the money keeps it pending for the webhook or the reconciler). A session paid
 * meanwhile, or swept by another replica, is left alone (`taken`).
 */
export async function expireSession(
  deps: PaymentsDeps,
  checkoutId: string,
  opts: ExpiryOptions,
): Promise<SessionExpiryResult> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const swept = await deps.outbox.commit(async (tx) => {
    const checkouts = tx.collection<CheckoutDoc>(CHECKOUTS);
    const current = await checkouts.get(checkoutId);
    if (!current || !isSessionExpiryDue(current, now)) return null;
    const stored = await checkouts.replace({
      ...current,
      status: 'expired',
      expiredAt: at,
      updatedAt: at,
    });
    const txs = tx.collection<TransactionDoc>(TRANSACTIONS);
    // At most one pending transaction per session (unique openCheckoutId, set only while status 0).
    const open = await txs.findOne({ openCheckoutId: current.id });
    let pending: TransactionDoc | null = null;
    // A transaction whose buyer finished at the provider and waits for its asynchronous flow
    // (`pending_provider`, e.g. a direct debit being collected) is not abandoned with the session:
    // it keeps its own expiry time (TRANSACTION_ABANDON_AFTER_MS after it started).
    if (open && open.status === TransactionStatus.pending && !open.deletedAt && open.subState !== 'pending_provider') {
      pending =
        typeof open.expireAt === 'string' && open.expireAt <= at ? open : await txs.replace({ ...open, expireAt: at });
    }
    const data: CheckoutSessionExpired = {
      organizationId: stored.organizationId,
      siteId: stored.siteId,
      mode: stored.mode,
      checkoutId: stored.id,
      externalReference: stored.externalReference,
      invoiceNumber: stored.invoiceNumber,
      expiresAt: stored.expiresAt,
      expiredAt: at,
      abandonedTransactionId: pending?.id ?? null,
    };
    tx.emit(Subjects.checkoutSessionExpired, data, {
      id: eventId(Subjects.checkoutSessionExpired, stored.id),
      occurredAt: at,
    });
    return { stored, pending };
  });
  if (!swept) return { result: 'taken' };
  const log = deps.logger.child({ component: 'session-expiry', checkoutId: swept.stored.id });
  log.info({ abandonedTransactionId: swept.pending?.id ?? null }, 'checkout session expired');
  if (!swept.pending) return { result: 'expired', transaction: null };
  const transaction = await expireTransaction(deps, swept.pending, opts);
  log.info(
    { transactionId: swept.pending.id, transaction },
    'pending transaction of the expired session sent to transaction expiry',
  );
  return { result: 'expired', transaction };
}
