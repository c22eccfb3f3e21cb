import { TransactionStatus } from '@paymesh/contracts';
import { ErrorCode, isDomainError } from '@paymesh/core';
import type { TransactionDoc } from '../domain/transaction';
import { EXPIRY_RETRY_CAP_MS, expiryRetryDelayMs } from '../domain/expiry-backoff';
import { IllegalTransitionError } from '../domain/transaction-state';
import { TRANSACTIONS } from '../store/collections';
import { cancelProviderPayment, providerMayHavePayment } from './cancel-transaction';
import type { PaymentsDeps } from './payments-deps';
import { applyTransition } from './transition';

export interface ExpiryOptions {
  /** Transactions looked at per pass. */
  batchSize: number;
  /** When a transaction whose provider did not (yet) cancel is first tried again (doubling per attempt). */
  retryMs: number;
  /** Longest pause between two attempts on one transaction (default EXPIRY_RETRY_CAP_MS, 6 h). */
  retryCapMs?: number;
}

/** What one expiry attempt did. */
export type ExpiryResult = 'expired' | 'taken' | 'refused' | 'failed';

/** Whether a stored transaction is due to expire at `now` (pure selection rule). */
export function isExpiryDue(doc: Pick<TransactionDoc, 'status' | 'expireAt' | 'deletedAt'>, now: Date): boolean {
  return (
    doc.status === TransactionStatus.pending &&
    !doc.deletedAt &&
    typeof doc.expireAt === 'string' &&
    doc.expireAt <= now.toISOString()
  );
}

/**
 * One expiry pass: pending transactions whose `expireAt` has passed (oldest first, up to
 * `batchSize`) are abandoned. Each is claimed by moving `expireAt` on by compare-and-set (one
 * replica per attempt), the provider cancels its payment if there may be one, and only then does
 * the transaction move to canceled (-2) with its status event (and so its IPN). A provider that
 * refuses (the money was taken) or cannot answer leaves the transaction pending: the webhook or
 * the reconciler settles it, and the next attempt comes after `retryMs`, doubling per attempt up to
 * `retryCapMs` and then at that interval for as long as it stays pending. Never guessed.
 */
export async function expireAbandonedTransactions(
  deps: PaymentsDeps,
  opts: ExpiryOptions,
): Promise<{ looked: number; expired: number; full: boolean }> {
  const now = deps.clock.now();
  const { items } = await deps.store
    .collection<TransactionDoc>(TRANSACTIONS)
    .find(
      { status: TransactionStatus.pending, expireAt: { $lte: now.toISOString() } },
      { sort: { expireAt: 1 }, limit: opts.batchSize },
    );
  let expired = 0;
  for (const doc of items) {
    if ((await expireTransaction(deps, doc, opts)) === 'expired') expired++;
  }
  return { looked: items.length, expired, full: items.length === opts.batchSize };
}

/** Claims one due transaction and expires it once its provider payment is cancelled. */
export async function expireTransaction(
  deps: PaymentsDeps,
  doc: TransactionDoc,
  opts: ExpiryOptions,
): Promise<ExpiryResult> {
  const now = deps.clock.now();
  if (!isExpiryDue(doc, now)) return 'taken';
  const log = deps.logger.child({ component: 'transaction-expiry', transactionId: doc.id });
  let claimed: TransactionDoc;
  const attempts = doc.expiryAttempts ?? 0;
  const delay = expiryRetryDelayMs(opts.retryMs, attempts, opts.retryCapMs ?? EXPIRY_RETRY_CAP_MS);
  try {
    // The claim also schedules the next attempt, should this one not end the transaction.
    claimed = await deps.store.collection<TransactionDoc>(TRANSACTIONS).replace({
      ...doc,
      expireAt: new Date(now.getTime() + delay).toISOString(),
      expiryAttempts: attempts + 1,
    });
  } catch (err) {
    if (isDomainError(err) && err.code === ErrorCode.VERSION_CONFLICT) return 'taken';
    throw err;
  }
  // The buyer finished at the provider (mark-pending): an asynchronous flow (a direct debit being
  // collected) may still move money, so only the provider's confirmed cancel abandons it.
  const needsConfirmedCancel = claimed.subState === 'pending_provider';
  try {
    if (claimed.providerId !== null && providerMayHavePayment(claimed)) {
      try {
        const res = await cancelProviderPayment(deps, claimed, claimed.providerId);
        if (!res.cancelled) {
          log.info(
            { attempts: attempts + 1, nextAttemptAt: claimed.expireAt },
            'provider refused to cancel the abandoned payment (money may have moved); left to the webhook or the reconciler',
          );
          return 'refused';
        }
      } catch (err) {
        if (isDomainError(err) && err.kind === 'conflict') {
          // CANCEL_REFUSED / PAYMENT_ALREADY_CAPTURED: the provider's answer, not a failure.
          log.info(
            { code: err.code, attempts: attempts + 1, nextAttemptAt: claimed.expireAt },
            'provider refused to cancel the abandoned payment; left to the webhook or the reconciler',
          );
          return 'refused';
        }
        if (
          !(isDomainError(err) && err.kind === 'not_found') ||
          claimed.providerPayment.state === 'requested' ||
          needsConfirmedCancel
        )
          throw err;
        log.info('no provider payment to cancel');
      }
    } else if (needsConfirmedCancel) {
      log.info(
        { attempts: attempts + 1, nextAttemptAt: claimed.expireAt },
        'waiting for a provider flow without a provider payment to cancel; not abandoned',
      );
      return 'refused';
    }
    await applyTransition(deps, claimed.id, () => ({
      trigger: { kind: 'expire' },
      reason: 'abandoned: pending past its expiry',
    }));
    log.info('abandoned transaction expired');
    return 'expired';
  } catch (err) {
    if (err instanceof IllegalTransitionError) return 'taken'; // settled meanwhile (paid, failed, cancelled)
    log.warn(
      { err, attempts: attempts + 1, nextAttemptAt: claimed.expireAt },
      'expiring an abandoned transaction failed; will retry',
    );
    return 'failed';
  }
}
