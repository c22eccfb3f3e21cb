/**
 * The IPN delivery state machine (pure; no I/O).
 *
 * One delivery per (transactionId, sequence). Each POST attempt is *claimed* before it is sent:
 * the attempt is appended with error "interrupted" and the retry is pre-scheduled as if it
 * failed, then the outcome overwrites it. A crash between claim and outcome therefore leaves an
 * attempt that counts, so no delivery ever makes more than {@link MAX_ATTEMPTS} POSTs per round
 * (the first round, and one more each time a merchant asks for it to be sent again).
 *
 * Per transaction, deliveries go out strictly in sequence order: a delivery waits while an
 * earlier one of the same transaction is still pending, and a delivery whose sequence is below
 * one already attempted is `superseded` (never sent), so an older status never reaches the
 * receiver after a newer one.
 */

/** Spec: at most three POST attempts in total. */
export const MAX_ATTEMPTS = 3;

/** Placeholder error of a claimed attempt; stays when the service stops before the outcome. */
export const INTERRUPTED = 'interrupted';

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'superseded';

export interface IpnAttempt {
  number: number;
  /** ISO time the attempt was claimed (just before the POST). */
  at: string;
  /** HTTP status of the answer; 0 when there was none. */
  httpStatus: number;
  /** Empty on success; otherwise why the attempt failed. */
  error: string;
  durationMs: number;
  /** Who asked for the redelivery this attempt belongs to; absent on automatic attempts. */
  requestedBy?: string;
}

/** A merchant's request to send the delivery again: a new round of up to {@link MAX_ATTEMPTS} attempts. */
export interface Redelivery {
  requestedAt: string;
  /** Who asked: a dashboard user's e-mail address or `api_key:<keyId>` / `system_key:<keyId>`. */
  requestedBy: string;
  /** Number of the round's first attempt. */
  firstAttempt: number;
}

/** A delivery document without the store's `id`/`version`. */
export interface DeliveryFields {
  organizationId: string;
  siteId: string;
  transactionId: string;
  mode: 'live' | 'test';
  sequence: number;
  /** Integer transaction status announced. */
  status: number;
  externalReference: string | null;
  url: string;
  state: DeliveryState;
  attempts: IpnAttempt[];
  /** When the scheduler should look at it next; null once final. */
  nextAttemptAt: string | null;
  /** End of the lease of the attempt in flight; null when none is. */
  leaseUntil: string | null;
  /** Number of the attempt claimed and not yet recorded. */
  inFlightAttempt: number | null;
  lastHttpStatus: number;
  lastError: string | null;
  /** Id of the event that created it (for tracing). */
  eventId: string;
  /**
   * Request context of the status change (`x-request-id`, `traceparent`, `tracestate`), so every
   * attempt, however late, is logged and traced as part of the request that caused it. Absent on
   * deliveries recorded before it was kept.
   */
  requestContext?: Record<string, string>;
  changedAt: string;
  createdAt: string;
  updatedAt: string;
  /** Redeliveries asked for, oldest first; absent when none. The last one's round is the current one. */
  redeliveries?: Redelivery[];
}

/** Attempts made before the current round (0 unless the delivery was sent again). */
export function roundStart(d: Pick<DeliveryFields, 'redeliveries'>): number {
  const last = d.redeliveries?.at(-1);
  return last ? last.firstAttempt - 1 : 0;
}

/**
 * Starts a new round of attempts of a final delivery (succeeded or failed): pending and due now,
 * its attempts numbered on from the last one, each recording who asked. Null when the delivery is
 * still pending (its round has not ended) or was superseded (a later status was sent).
 */
export function redeliver(d: DeliveryFields, requestedBy: string, now: Date): DeliveryFields | null {
  if (d.state !== 'succeeded' && d.state !== 'failed') return null;
  const at = now.toISOString();
  return {
    ...d,
    state: 'pending',
    nextAttemptAt: at,
    leaseUntil: null,
    inFlightAttempt: null,
    lastError: null,
    updatedAt: at,
    redeliveries: [...(d.redeliveries ?? []), { requestedAt: at, requestedBy, firstAttempt: d.attempts.length + 1 }],
  };
}

/** Per-transaction lane: serializes claims and remembers the highest sequence already attempted. */
export interface LaneFields {
  organizationId: string;
  highestStartedSequence: number;
  leaseUntil: string | null;
  leaseDeliveryId: string | null;
  updatedAt: string;
}

/** Timing settings of the delivery engine. */
export interface DeliveryTiming {
  /** Delay after attempt 1; doubles after each further failure. */
  backoffBaseMs: number;
  /** Whole-request timeout of one POST. */
  timeoutMs: number;
  /** Slack added to the timeout for the lease of an attempt (outcome recording, clock skew). */
  leaseMarginMs: number;
  /** Shortest wait before looking again at a delivery blocked behind another. */
  waitFloorMs: number;
}

/** Delay before attempt `n + 1` after attempt `n` failed: base, 2·base, 4·base, ... */
export function backoffDelayMs(attemptNumber: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attemptNumber - 1);
}

/** The fields an outbox record (IPN delivery, e-mail) claims its attempts with. */
interface AttemptedRecord {
  state: string;
  attempts: readonly { error: string }[];
  nextAttemptAt: string | null;
  leaseUntil: string | null;
  inFlightAttempt: number | null;
  lastError: string | null;
  updatedAt: string;
}

/**
 * An outbox record whose attempts are all used: failed for good, nothing due, no lease; its error
 * is the last attempt's (interrupted when that one never reported back).
 */
export function exhausted<R extends AttemptedRecord>(record: R, at: string): R {
  const last = record.attempts[record.attempts.length - 1];
  return {
    ...record,
    state: 'failed',
    nextAttemptAt: null,
    leaseUntil: null,
    inFlightAttempt: null,
    lastError: last?.error || INTERRUPTED,
    updatedAt: at,
  };
}

/** Success is any 2xx answer. */
export function isSuccessStatus(httpStatus: number): boolean {
  return httpStatus >= 200 && httpStatus <= 299;
}

/** Input of {@link newDelivery}: the parts of a status-change event a delivery keeps. */
export interface StatusChange {
  organizationId: string;
  siteId: string;
  transactionId: string;
  mode: 'live' | 'test';
  status: number;
  externalReference: string | null;
  ipnUrl: string;
  sequence: number;
  changedAt: string;
}

export function newDelivery(change: StatusChange, eventId: string, now: Date): DeliveryFields {
  const at = now.toISOString();
  return {
    organizationId: change.organizationId,
    siteId: change.siteId,
    transactionId: change.transactionId,
    mode: change.mode,
    sequence: change.sequence,
    status: change.status,
    externalReference: change.externalReference,
    url: change.ipnUrl,
    state: 'pending',
    attempts: [],
    nextAttemptAt: at,
    leaseUntil: null,
    inFlightAttempt: null,
    lastHttpStatus: 0,
    lastError: null,
    eventId,
    changedAt: change.changedAt,
    createdAt: at,
    updatedAt: at,
  };
}

/** The JSON body sent: `{id, externalReference?, status}` (externalReference omitted when empty). */
export function ipnBody(d: Pick<DeliveryFields, 'transactionId' | 'externalReference' | 'status'>): string {
  return JSON.stringify({
    id: d.transactionId,
    ...(d.externalReference ? { externalReference: d.externalReference } : {}),
    status: d.status,
  });
}

export function isDue(d: Pick<DeliveryFields, 'state' | 'nextAttemptAt'>, now: Date): boolean {
  return d.state === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= now.toISOString();
}

/** What the claim step sees besides the delivery itself. */
export interface ClaimContext {
  now: Date;
  lane: LaneFields | null;
  /** The earliest-due pending delivery of the same transaction with a lower sequence, if any. */
  earlierPending: Pick<DeliveryFields, 'sequence' | 'nextAttemptAt'> | null;
  timing: DeliveryTiming;
}

export type ClaimPlan =
  /** Not due (or no longer pending): nothing to do. */
  | { kind: 'skip' }
  /** Blocked behind another delivery; look again at `delivery.nextAttemptAt`. */
  | { kind: 'wait'; delivery: DeliveryFields }
  /** A later status was already attempted: never send this one. Final. */
  | { kind: 'superseded'; delivery: DeliveryFields }
  /** All attempts were made (the last was interrupted): failed. Final. */
  | { kind: 'exhausted'; delivery: DeliveryFields }
  /** Send attempt `attempt` now; the claim is stored before the POST. */
  | { kind: 'send'; attempt: number; delivery: DeliveryFields; lane: LaneFields };

const iso = (ms: number) => new Date(ms).toISOString();

/** Decides what to do with a due delivery; see the module comment for the rules. */
export function planClaim(d: DeliveryFields, deliveryId: string, ctx: ClaimContext): ClaimPlan {
  const { now, lane, timing } = ctx;
  const nowMs = now.getTime();
  const at = now.toISOString();
  if (!isDue(d, now)) return { kind: 'skip' };
  if (d.inFlightAttempt !== null && d.leaseUntil !== null && d.leaseUntil > at) {
    // Its own attempt is still running somewhere: never start another one beside it.
    return { kind: 'wait', delivery: { ...d, nextAttemptAt: d.leaseUntil, updatedAt: at } };
  }

  if (lane && d.sequence < lane.highestStartedSequence) {
    return {
      kind: 'superseded',
      delivery: {
        ...d,
        state: 'superseded',
        nextAttemptAt: null,
        leaseUntil: null,
        inFlightAttempt: null,
        lastError: `superseded: a later status (sequence ${lane.highestStartedSequence}) was already sent`,
        updatedAt: at,
      },
    };
  }
  if (ctx.earlierPending) {
    const floor = nowMs + timing.waitFloorMs;
    const blockerDue = ctx.earlierPending.nextAttemptAt ? Date.parse(ctx.earlierPending.nextAttemptAt) : floor;
    return { kind: 'wait', delivery: { ...d, nextAttemptAt: iso(Math.max(floor, blockerDue)), updatedAt: at } };
  }
  if (lane?.leaseUntil && lane.leaseUntil > at && lane.leaseDeliveryId !== deliveryId) {
    const until = Math.max(nowMs + timing.waitFloorMs, Date.parse(lane.leaseUntil));
    return { kind: 'wait', delivery: { ...d, nextAttemptAt: iso(until), updatedAt: at } };
  }
  const round = roundStart(d);
  if (d.attempts.length - round >= MAX_ATTEMPTS) {
    return { kind: 'exhausted', delivery: exhausted(d, at) };
  }

  const attempt = d.attempts.length + 1;
  const inRound = attempt - round;
  const leaseEnd = nowMs + timing.timeoutMs + timing.leaseMarginMs;
  // If this process dies mid-attempt the delivery is due again when the retry would have been.
  const retryAt = inRound < MAX_ATTEMPTS ? leaseEnd + backoffDelayMs(inRound, timing.backoffBaseMs) : leaseEnd;
  const requestedBy = d.redeliveries?.at(-1)?.requestedBy;
  return {
    kind: 'send',
    attempt,
    delivery: {
      ...d,
      attempts: [
        ...d.attempts,
        {
          number: attempt,
          at,
          httpStatus: 0,
          error: INTERRUPTED,
          durationMs: 0,
          ...(requestedBy !== undefined ? { requestedBy } : {}),
        },
      ],
      nextAttemptAt: iso(retryAt),
      leaseUntil: iso(leaseEnd),
      inFlightAttempt: attempt,
      updatedAt: at,
    },
    lane: {
      organizationId: d.organizationId,
      highestStartedSequence: Math.max(lane?.highestStartedSequence ?? 0, d.sequence),
      leaseUntil: iso(leaseEnd),
      leaseDeliveryId: deliveryId,
      updatedAt: at,
    },
  };
}

/** Result of one POST (or of refusing to make it). */
export interface AttemptOutcome {
  httpStatus: number;
  /** Empty on a 2xx answer. */
  error: string;
  durationMs: number;
  /** The target was refused by the SSRF guard or is not a usable URL: retrying cannot help. */
  refused: boolean;
}

/**
 * Records the outcome of attempt `attempt`. Returns null when that attempt is no longer the one
 * in flight (its lease ran out and the delivery moved on): the late outcome is dropped.
 * 2xx -> succeeded; refused target -> failed at once; otherwise failed after the last attempt,
 * else pending with the next attempt after the backoff.
 */
export function applyOutcome(
  d: DeliveryFields,
  attempt: number,
  outcome: AttemptOutcome,
  now: Date,
  timing: Pick<DeliveryTiming, 'backoffBaseMs'>,
): { delivery: DeliveryFields; final: boolean } | null {
  if (d.state !== 'pending' || d.inFlightAttempt !== attempt) return null;
  const at = now.toISOString();
  const attempts = d.attempts.map((a) =>
    a.number === attempt
      ? { ...a, httpStatus: outcome.httpStatus, error: outcome.error, durationMs: outcome.durationMs }
      : a,
  );
  const base = {
    ...d,
    attempts,
    leaseUntil: null,
    inFlightAttempt: null,
    lastHttpStatus: outcome.httpStatus,
    updatedAt: at,
  };
  if (!outcome.refused && isSuccessStatus(outcome.httpStatus)) {
    return { delivery: { ...base, state: 'succeeded', nextAttemptAt: null, lastError: null }, final: true };
  }
  const inRound = attempt - roundStart(d);
  if (outcome.refused || inRound >= MAX_ATTEMPTS) {
    return { delivery: { ...base, state: 'failed', nextAttemptAt: null, lastError: outcome.error }, final: true };
  }
  const next = now.getTime() + backoffDelayMs(inRound, timing.backoffBaseMs);
  return { delivery: { ...base, state: 'pending', nextAttemptAt: iso(next), lastError: outcome.error }, final: false };
}

/** Releases the lane after an attempt of `deliveryId` ended (no-op when another holds it). */
export function releaseLane(lane: LaneFields, deliveryId: string, now: Date): LaneFields | null {
  if (lane.leaseDeliveryId !== deliveryId) return null;
  return { ...lane, leaseUntil: null, leaseDeliveryId: null, updatedAt: now.toISOString() };
}

/** Fails a delivery without any attempt (e.g. its site no longer exists). */
export function failWithoutAttempt(d: DeliveryFields, reason: string, now: Date): DeliveryFields {
  return {
    ...d,
    state: 'failed',
    nextAttemptAt: null,
    leaseUntil: null,
    inFlightAttempt: null,
    lastError: reason,
    updatedAt: now.toISOString(),
  };
}
