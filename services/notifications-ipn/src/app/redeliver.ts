import { ConflictError, contextHeaders, ErrorCode, isObjectId, ValidationError } from '@paymesh/core';
import { newDelivery, redeliver, type StatusChange } from '../domain/delivery';
import { DELIVERIES, type DeliveryDoc } from '../store/collections';
import type { IpnDeps } from './deps';
import { fieldsOf } from './fields';

/**
 * What the gateway knows of the transaction (read from checkout, which owns it: `status` is its
 * current status) and who asks.
 */
export interface RedeliverInput extends Omit<StatusChange, 'sequence' | 'changedAt'> {
  requestedBy: string;
}

/** Sequence of a transaction's first status (see process-delivery.ts): announced by no automatic IPN. */
const INITIAL_SEQUENCE = 1;

/**
 * Sends a transaction's current status again: the delivery of its latest status change starts a
 * new round of attempts (each freshly timestamped and signed when it is made, up to three), or,
 * when its status never changed, a delivery of that first status is created. Every attempt of the
 * round records who asked. Refused (409) while a delivery of the transaction is still pending, and
 * while the latest status change has not reached this service yet.
 */
export async function redeliverIpn(
  deps: Pick<IpnDeps, 'store' | 'clock' | 'logger'>,
  input: RedeliverInput,
): Promise<DeliveryDoc> {
  if (!isObjectId(input.organizationId) || !isObjectId(input.transactionId) || !isObjectId(input.siteId))
    throw new ValidationError('organizationId, siteId and transactionId must be 24-hex identifiers');
  if (!input.ipnUrl) throw new ValidationError('the transaction has no ipnUrl: there is nowhere to send an IPN');
  if (!input.requestedBy) throw new ValidationError('requestedBy is required');
  const deliveries = deps.store.collection<DeliveryDoc>(DELIVERIES);
  const log = deps.logger.child({ transactionId: input.transactionId, requestedBy: input.requestedBy });
  const { items } = await deliveries.find(
    { organizationId: input.organizationId, transactionId: input.transactionId },
    { sort: { sequence: -1 }, limit: 1 },
  );
  const latest = items[0];
  const now = deps.clock.now();
  if (!latest) {
    const fields = newDelivery(
      { ...input, sequence: INITIAL_SEQUENCE, changedAt: now.toISOString() },
      `redelivery:${input.transactionId}:${now.getTime()}`,
      now,
    );
    const first = redeliver({ ...fields, state: 'failed' }, input.requestedBy, now);
    if (!first) throw new Error('a new delivery can always be redelivered');
    try {
      const stored = await deliveries.insert({ ...first, requestContext: contextHeaders() });
      log.info({ deliveryId: stored.id, status: input.status }, 'IPN redelivery of the initial status created');
      return stored;
    } catch (err) {
      if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)
        throw new ConflictError('an IPN of this transaction was just created; look again');
      throw err;
    }
  }
  if (latest.status !== input.status)
    throw new ConflictError('the transaction changed status and its IPN is on its way; try again in a moment');
  const next = redeliver(fieldsOf(latest), input.requestedBy, now);
  if (!next) throw new ConflictError('an IPN of this transaction is still being delivered; try again when it ends');
  // A new round runs in the request that asked for it (its log lines and trace).
  const stored = await deliveries.replace(latest.id, latest.version, { ...next, requestContext: contextHeaders() });
  log.info({ deliveryId: stored.id, status: stored.status, round: next.redeliveries?.length }, 'IPN redelivery asked');
  return stored;
}
