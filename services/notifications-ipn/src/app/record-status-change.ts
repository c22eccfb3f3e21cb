import { ConflictError, ErrorCode, contextHeaders } from '@paymesh/core';
import type { TransactionStatusChangedBrief } from '@paymesh/contracts';
import { newDelivery } from '../domain/delivery';
import { DELIVERIES, type DeliveryDoc } from '../store/collections';
import type { IpnDeps } from './deps';

export type RecordResult = 'created' | 'exists' | 'no-ipn-url' | 'initial-status';

/**
 * Creates the pending delivery announcing one transaction status change. Keyed by
 * (transactionId, sequence) with a unique index, so a redelivered event changes nothing.
 * `onCreated` gets the delivery as stored (the scheduler can work on it without looking it up).
 */
export async function recordStatusChange(
  deps: Pick<IpnDeps, 'store' | 'logger' | 'clock'>,
  change: TransactionStatusChangedBrief,
  eventId: string,
  onCreated?: (delivery: DeliveryDoc) => void,
): Promise<RecordResult> {
  const log = deps.logger.child({ transactionId: change.transactionId, sequence: change.sequence });
  if (!change.ipnUrl) {
    log.debug('transaction has no ipnUrl; no IPN');
    return 'no-ipn-url';
  }
  // The status a transaction is created with is no change: the merchant's server learns it from
  // the create call itself. IPN announces changes only (first one: pending -> completed, ...).
  if (change.previousStatus === null) {
    log.debug({ status: change.status }, 'initial status of a new transaction; no IPN');
    return 'initial-status';
  }
  // Runs in the consumed event's context: its traceparent names the consume span.
  const doc = {
    ...newDelivery({ ...change, ipnUrl: change.ipnUrl }, eventId, deps.clock.now()),
    requestContext: contextHeaders(),
  };
  try {
    const stored = await deps.store.collection<DeliveryDoc>(DELIVERIES).insert(doc);
    log.info({ deliveryId: stored.id, status: change.status }, 'IPN delivery created');
    onCreated?.(stored);
    return 'created';
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) {
      log.info('IPN delivery already recorded for this status change');
      return 'exists';
    }
    throw err;
  }
}
