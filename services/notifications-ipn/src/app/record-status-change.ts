import { ConflictError, ErrorCode, contextHeaders, newObjectId, type Logger } from '@paymesh/core';
import type { TransactionStatusChangedBrief } from '@paymesh/contracts';
import { newDelivery, planClaim, type DeliveryFields } from '../domain/delivery';
import { DELIVERIES, LANES, type DeliveryDoc, type LaneDoc } from '../store/collections';
import type { IpnDeps } from './deps';
import { FIRST_CHANGE_SEQUENCE, type ProcessResult, type SendPlan } from './process-delivery';

/** A slot of the delivery scheduler held for one delivery (see `DueWorkScheduler.reserve`). */
export interface ClaimSlot {
  run(work: () => Promise<ProcessResult>): void;
  release(): void;
}

/**
 * What the consumer needs to store a transaction's first IPN already claimed: a free slot of the
 * scheduler, the site's signing secret, and the attempt's sending.
 */
export interface ClaimOnRecord {
  reserve(deliveryId: string): ClaimSlot | null;
  deps: Pick<IpnDeps, 'secrets' | 'timing'>;
  send(
    deliveryId: string,
    secret: string,
    plan: SendPlan,
    stored: { delivery: DeliveryDoc; lane: LaneDoc },
  ): Promise<ProcessResult>;
}

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
  claim?: ClaimOnRecord,
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
  if (claim && change.sequence <= FIRST_CHANGE_SEQUENCE && (await recordClaimed(deps, claim, doc, log))) {
    return 'created';
  }
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

/**
 * A transaction's first IPN (its first change: no earlier delivery to wait for, and normally no
 * lane yet) stored with its first attempt claimed and its lane, in one statement, when the
 * scheduler has a slot free and the signing secret is at hand; the attempt then goes out in that
 * slot. The document is the one a claim right after a plain insert would have written, so a crash
 * before the POST leaves what such a claim leaves (an interrupted attempt, due again after its
 * lease and backoff). False when it could not be done so (no slot, no secret, the key or the lane
 * taken): the caller then records the delivery unclaimed, as before.
 */
async function recordClaimed(
  deps: Pick<IpnDeps, 'store' | 'clock'>,
  claim: ClaimOnRecord,
  doc: DeliveryFields,
  log: Logger,
): Promise<boolean> {
  const id = newObjectId();
  const slot = claim.reserve(id);
  if (!slot) return false;
  let started = false;
  try {
    let secret: string;
    try {
      secret = await claim.deps.secrets.get(doc.organizationId, doc.siteId);
    } catch (err) {
      // The scheduler's path decides (site gone: failed without an attempt; checkout down: later).
      log.debug({ err }, 'signing secret not at hand; IPN delivery recorded unclaimed');
      return false;
    }
    const plan = planClaim(doc, id, {
      now: deps.clock.now(),
      lane: null,
      earlierPending: null,
      timing: claim.deps.timing,
    });
    if (plan.kind !== 'send') return false;
    let stored: { delivery: DeliveryDoc; lane: LaneDoc };
    try {
      stored = await deps.store.transaction(async (tx) => ({
        delivery: await tx.collection<DeliveryDoc>(DELIVERIES).insert({ id, ...plan.delivery }),
        lane: await tx.collection<LaneDoc>(LANES).insert({ id: doc.transactionId, ...plan.lane }),
      }));
    } catch (err) {
      // A redelivered event (the delivery exists) or a later status claimed first (the lane
      // exists): nothing was written; the plain insert tells which and carries on.
      if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) return false;
      throw err;
    }
    log.info({ deliveryId: id, status: doc.status }, 'IPN delivery created and its first attempt claimed');
    slot.run(() => claim.send(id, secret, plan, stored));
    started = true;
    return true;
  } finally {
    if (!started) slot.release();
  }
}
