import { ConflictError, ErrorCode, NotFoundError } from '@paymesh/core';
import { IpnHeaders, signIpn } from '@paymesh/contracts';
import type { TxScope } from '@paymesh/store';
import {
  applyOutcome,
  failWithoutAttempt,
  ipnBody,
  isDue,
  planClaim,
  releaseLane,
  type AttemptOutcome,
  type ClaimPlan,
} from '../domain/delivery';
import { DELIVERIES, LANES, type DeliveryDoc, type LaneDoc } from '../store/collections';
import type { IpnDeps } from './deps';
import { fieldsOf } from './fields';

/** How long a delivery waits when checkout cannot hand out the signing secret (no attempt used). */
export const SECRET_UNAVAILABLE_RETRY_MS = 5_000;

export type ProcessResult =
  | 'skipped'
  | 'waiting'
  | 'superseded'
  | 'exhausted'
  | 'secret-unavailable'
  | 'site-not-found'
  | 'succeeded'
  | 'retry-scheduled'
  | 'failed'
  | 'outcome-dropped';

const USER_AGENT = 'Paymesh-IPN/1.0';

/**
 * `sequence` of a transaction's first status change: its first status is 1 (the contract of
 * `checkout.transaction.status_changed`) and announces nothing, so no delivery comes before it.
 */
export const FIRST_CHANGE_SEQUENCE = 2;

/**
 * The next pending delivery of `finished`'s transaction. Read before the transaction writes
 * `finished` (it is not among the later ones this looks at), so that the writes that follow are
 * sent together as one statement (see the store's batched transactions).
 */
function findNext(tx: TxScope, finished: DeliveryDoc): Promise<DeliveryDoc | null> {
  return tx
    .collection<DeliveryDoc>(DELIVERIES)
    .findOne(
      { transactionId: finished.transactionId, state: 'pending', sequence: { $gt: finished.sequence } },
      { sort: { sequence: 1 } },
    );
}

/** Makes `next` (from {@link findNext}) due now, once the delivery before it is final. */
async function promote(tx: TxScope, next: DeliveryDoc | null, now: Date): Promise<void> {
  const at = now.toISOString();
  if (!next || next.inFlightAttempt !== null || (next.nextAttemptAt !== null && next.nextAttemptAt <= at)) return;
  await tx.collection<DeliveryDoc>(DELIVERIES).replace({ ...next, nextAttemptAt: at, updatedAt: at });
}

/** A claimed attempt and the documents as the claim stored them (for the outcome's compare-and-set). */
interface Claim {
  plan: ClaimPlan;
  stored?: { delivery: DeliveryDoc; lane: LaneDoc };
}

/**
 * Claims the next attempt (or settles the delivery) in one transaction with the lane's CAS. `d`
 * is the delivery as the caller read it: the compare-and-set on it fails (ConflictError) when
 * another replica moved it since, so it need not be read again here.
 */
async function claim(deps: IpnDeps, d: DeliveryDoc): Promise<Claim> {
  // The first attempt of a transaction's first change normally finds no lane (the lane is made by
  // a claim, and this is the first of them): it is inserted without looking. Should a later
  // status's delivery have been claimed first (events out of order), the insert finds its lane
  // taken and the claim runs again, reading it.
  if (d.sequence <= FIRST_CHANGE_SEQUENCE && d.attempts.length === 0) {
    try {
      return await claimWith(deps, d, false);
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    }
  }
  return claimWith(deps, d, true);
}

async function claimWith(deps: IpnDeps, d: DeliveryDoc, readLane: boolean): Promise<Claim> {
  return deps.store.transaction(async (tx): Promise<Claim> => {
    const deliveries = tx.collection<DeliveryDoc>(DELIVERIES);
    const lanes = tx.collection<LaneDoc>(LANES);
    const now = deps.clock.now();
    if (!isDue(d, now)) return { plan: { kind: 'skip' } };
    const lane = readLane ? await lanes.get(d.transactionId) : null;
    // A transaction's first change (sequence 2: its first status is 1) has no earlier delivery to wait for.
    const earlierPending =
      d.sequence <= FIRST_CHANGE_SEQUENCE
        ? null
        : await deliveries.findOne(
            { transactionId: d.transactionId, state: 'pending', sequence: { $lt: d.sequence } },
            { sort: { nextAttemptAt: 1 } },
          );
    const plan = planClaim(fieldsOf(d), d.id, {
      now,
      lane: lane && fieldsOf(lane),
      earlierPending,
      timing: deps.timing,
    });
    if (plan.kind === 'skip') return { plan };
    const next = plan.kind === 'superseded' || plan.kind === 'exhausted' ? await findNext(tx, d) : null;
    const delivery = await deliveries.replace(d.id, d.version, plan.delivery);
    await promote(tx, next, now);
    // Waiting behind the lane's holder: the lane is written too (compare-and-set), so this wait
    // and the holder's outcome, which releases the lane and lets the next delivery go, cannot
    // miss each other. Whichever commits second finds the lane moved and runs again: the outcome
    // then sees this wait and makes the delivery due, or the claim finds the lane free.
    if (plan.kind === 'wait' && lane) {
      await lanes.replace({ ...lane, updatedAt: now.toISOString() });
    }
    if (plan.kind !== 'send') return { plan };
    const storedLane = lane
      ? await lanes.replace(lane.id, lane.version, plan.lane)
      : await lanes.insert({ id: d.transactionId, ...plan.lane });
    return { plan, stored: { delivery, lane: storedLane } };
  });
}

/**
 * Stores an attempt's outcome, releases the lane and, when final, lets the next delivery go.
 * `held` are the documents as the claim stored them: compare-and-set against them first, and
 * read them again only when another writer moved one (the retry passes no `held`).
 */
async function recordOutcome(
  deps: IpnDeps,
  id: string,
  attempt: number,
  outcome: AttemptOutcome,
  held?: { delivery: DeliveryDoc; lane: LaneDoc },
) {
  return deps.store.transaction(async (tx) => {
    const deliveries = tx.collection<DeliveryDoc>(DELIVERIES);
    const lanes = tx.collection<LaneDoc>(LANES);
    const now = deps.clock.now();
    const d = held?.delivery ?? (await deliveries.get(id));
    if (!d) return null;
    const res = applyOutcome(fieldsOf(d), attempt, outcome, now, deps.timing);
    if (!res) return null;
    const next = res.final ? await findNext(tx, d) : null;
    const lane = held?.lane ?? (await lanes.get(d.transactionId));
    await deliveries.replace(d.id, d.version, res.delivery);
    const released = lane && releaseLane(fieldsOf(lane), d.id, now);
    if (lane && released) await lanes.replace(lane.id, lane.version, released);
    await promote(tx, next, now);
    return res.delivery;
  });
}

async function settleWithoutAttempt(deps: IpnDeps, id: string, reason: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const deliveries = tx.collection<DeliveryDoc>(DELIVERIES);
    const now = deps.clock.now();
    const d = await deliveries.get(id);
    if (!d || !isDue(d, now) || d.inFlightAttempt !== null) return;
    const next = await findNext(tx, d);
    await deliveries.replace(d.id, d.version, failWithoutAttempt(fieldsOf(d), reason, now));
    await promote(tx, next, now);
  });
}

async function postpone(deps: IpnDeps, id: string, ms: number): Promise<void> {
  const now = deps.clock.now();
  await deps.store.collection<DeliveryDoc>(DELIVERIES).update(id, (cur) => {
    if (!isDue(cur, now)) return null;
    return {
      ...cur,
      nextAttemptAt: new Date(now.getTime() + ms).toISOString(),
      updatedAt: now.toISOString(),
    };
  });
}

/**
 * Works on one due delivery: fetches the signing secret, claims the attempt (stored before the
 * POST), signs and sends, and stores the outcome. Safe to run on several replicas at once: the
 * claim is a compare-and-set on the delivery and on its transaction's lane, so exactly one of
 * them sends a given attempt.
 */
export async function processDelivery(deps: IpnDeps, id: string, known?: DeliveryDoc): Promise<ProcessResult> {
  // The scheduler passes the document it found due; the claim's compare-and-set catches a stale one.
  const d = known ?? (await deps.store.collection<DeliveryDoc>(DELIVERIES).get(id));
  if (!d || !isDue(d, deps.clock.now())) return 'skipped';
  const log = deps.logger.child({ deliveryId: id, transactionId: d.transactionId, sequence: d.sequence });

  // The secret comes first so that a checkout outage never uses up an attempt.
  let secret: string;
  try {
    secret = await deps.secrets.get(d.organizationId, d.siteId);
  } catch (err) {
    if (err instanceof NotFoundError) {
      log.warn('site of the transaction not found; IPN delivery failed without an attempt');
      await settleWithoutAttempt(deps, id, 'site not found: no signing secret').catch((e: unknown) =>
        log.warn({ err: e }, 'could not settle IPN delivery'),
      );
      return 'site-not-found';
    }
    log.warn({ err }, 'signing secret unavailable; IPN delivery postponed');
    await postpone(deps, id, SECRET_UNAVAILABLE_RETRY_MS).catch((e: unknown) =>
      log.warn({ err: e }, 'could not postpone IPN delivery'),
    );
    return 'secret-unavailable';
  }

  let claimed: Claim;
  try {
    claimed = await claim(deps, d);
  } catch (err) {
    if (err instanceof ConflictError) return 'skipped'; // another replica moved it first
    throw err;
  }
  const { plan } = claimed;
  if (plan.kind === 'skip') return 'skipped';
  if (plan.kind === 'wait') return 'waiting';
  if (plan.kind === 'superseded') {
    log.info('IPN delivery superseded by a later status; not sent');
    return 'superseded';
  }
  if (plan.kind === 'exhausted') {
    log.warn('IPN delivery failed: its last attempt was interrupted');
    return 'exhausted';
  }
  return sendClaimed(deps, id, secret, plan, claimed.stored);
}

/** A claimed attempt: what it sends. */
export type SendPlan = Extract<ClaimPlan, { kind: 'send' }>;

/**
 * Sends a claimed attempt (stored before this POST), signed with `secret`, and stores its outcome.
 * `stored` are the delivery and lane as the claim wrote them (the outcome's compare-and-set).
 */
export async function sendClaimed(
  deps: IpnDeps,
  id: string,
  secret: string,
  plan: SendPlan,
  stored?: { delivery: DeliveryDoc; lane: LaneDoc },
): Promise<ProcessResult> {
  const log = deps.logger.child({
    deliveryId: id,
    transactionId: plan.delivery.transactionId,
    sequence: plan.delivery.sequence,
  });
  const body = ipnBody(plan.delivery);
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  const outcome = await deps.sender.send({
    url: plan.delivery.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [IpnHeaders.timestamp]: String(timestamp),
      [IpnHeaders.signature]: signIpn(secret, timestamp, body),
    },
  });
  const alog = log.child({ attempt: plan.attempt, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs });

  let settled = null;
  for (let i = 0; i < 3 && settled === null; i++) {
    try {
      // The first try compares against what the claim stored; a conflict makes later tries re-read.
      settled = await recordOutcome(deps, id, plan.attempt, outcome, i === 0 ? stored : undefined);
      if (settled === null) break;
    } catch (err) {
      // The claim already counts the attempt; without the outcome it stays "interrupted".
      if (i === 2) alog.error({ err }, 'could not record IPN attempt outcome');
    }
  }
  if (!settled) {
    alog.warn('IPN attempt outcome not recorded; the attempt counts as interrupted');
    return 'outcome-dropped';
  }
  if (settled.state === 'succeeded') {
    alog.info('IPN delivered');
    return 'succeeded';
  }
  if (settled.state === 'failed') {
    alog.warn({ error: outcome.error }, 'IPN delivery failed');
    return 'failed';
  }
  alog.info({ error: outcome.error, nextAttemptAt: settled.nextAttemptAt }, 'IPN attempt failed; retry scheduled');
  return 'retry-scheduled';
}
