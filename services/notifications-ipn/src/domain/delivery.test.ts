import { describe, expect, it } from 'vitest';
import {
  INTERRUPTED,
  MAX_ATTEMPTS,
  applyOutcome,
  backoffDelayMs,
  ipnBody,
  isSuccessStatus,
  newDelivery,
  planClaim,
  redeliver,
  releaseLane,
  type AttemptOutcome,
  type ClaimContext,
  type DeliveryFields,
  type LaneFields,
} from './delivery';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const timing = { backoffBaseMs: 10_000, timeoutMs: 10_000, leaseMarginMs: 5_000, waitFloorMs: 1_000 };
const ID = 'd00000000000000000000001';

function delivery(over: Partial<DeliveryFields> = {}): DeliveryFields {
  return {
    ...newDelivery(
      {
        organizationId: 'a00000000000000000000001',
        siteId: 'b00000000000000000000001',
        transactionId: 'c00000000000000000000001',
        mode: 'live',
        status: 1,
        externalReference: 'order-7',
        ipnUrl: 'https://shop.example/ipn',
        sequence: 2,
        changedAt: T0.toISOString(),
      },
      'evt-1',
      T0,
    ),
    ...over,
  };
}

const ctx = (over: Partial<ClaimContext> = {}): ClaimContext => ({
  now: T0,
  lane: null,
  earlierPending: null,
  timing,
  ...over,
});
const fail = (httpStatus = 500, error = 'HTTP 500'): AttemptOutcome => ({
  httpStatus,
  error,
  durationMs: 12,
  refused: false,
});
const ok: AttemptOutcome = { httpStatus: 204, error: '', durationMs: 8, refused: false };

/** Claims and records one attempt; returns the delivery afterwards. */
function attempt(
  d: DeliveryFields,
  now: Date,
  outcome: AttemptOutcome,
  lane: LaneFields | null = null,
): DeliveryFields {
  const plan = planClaim(d, ID, ctx({ now, lane }));
  if (plan.kind !== 'send') throw new Error(`expected send, got ${plan.kind}`);
  const res = applyOutcome(plan.delivery, plan.attempt, outcome, now, timing);
  if (!res) throw new Error('outcome dropped');
  return res.delivery;
}

describe('backoff', () => {
  it('waits base after attempt 1 and twice base after attempt 2', () => {
    expect(backoffDelayMs(1, 10_000)).toBe(10_000);
    expect(backoffDelayMs(2, 10_000)).toBe(20_000);
    expect(backoffDelayMs(1, 300)).toBe(300);
    expect(backoffDelayMs(2, 300)).toBe(600);
  });

  it('treats exactly the 2xx range as success', () => {
    expect([199, 200, 204, 299, 300, 302, 404, 500].map(isSuccessStatus)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('ipnBody', () => {
  it('is {id, externalReference, status} and omits an empty externalReference', () => {
    expect(ipnBody(delivery())).toBe('{"id":"c00000000000000000000001","externalReference":"order-7","status":1}');
    expect(ipnBody(delivery({ externalReference: null, status: -2 }))).toBe(
      '{"id":"c00000000000000000000001","status":-2}',
    );
    expect(ipnBody(delivery({ externalReference: '' }))).toBe('{"id":"c00000000000000000000001","status":1}');
  });
});

describe('delivery state machine', () => {
  it('starts pending and due at once', () => {
    const d = delivery();
    expect(d).toMatchObject({ state: 'pending', attempts: [], nextAttemptAt: T0.toISOString(), lastHttpStatus: 0 });
  });

  it('claims an attempt before sending: recorded as interrupted with the retry pre-scheduled', () => {
    const plan = planClaim(delivery(), ID, ctx());
    expect(plan.kind).toBe('send');
    if (plan.kind !== 'send') return;
    expect(plan.attempt).toBe(1);
    expect(plan.delivery.attempts).toEqual([
      { number: 1, at: T0.toISOString(), httpStatus: 0, error: INTERRUPTED, durationMs: 0 },
    ]);
    expect(plan.delivery.inFlightAttempt).toBe(1);
    expect(plan.delivery.leaseUntil).toBe(at(15_000).toISOString());
    // lease end + backoff after attempt 1
    expect(plan.delivery.nextAttemptAt).toBe(at(25_000).toISOString());
    expect(plan.lane).toMatchObject({
      highestStartedSequence: 2,
      leaseDeliveryId: ID,
      leaseUntil: at(15_000).toISOString(),
    });
  });

  it('succeeds on a 2xx answer', () => {
    const d = attempt(delivery(), T0, ok);
    expect(d).toMatchObject({
      state: 'succeeded',
      nextAttemptAt: null,
      lastHttpStatus: 204,
      lastError: null,
      inFlightAttempt: null,
    });
    expect(d.attempts).toEqual([{ number: 1, at: T0.toISOString(), httpStatus: 204, error: '', durationMs: 8 }]);
  });

  it('retries with exponential backoff and fails after exactly three attempts', () => {
    let d = attempt(delivery(), T0, fail());
    expect(d).toMatchObject({ state: 'pending', lastHttpStatus: 500, nextAttemptAt: at(10_000).toISOString() });
    expect(planClaim(d, ID, ctx({ now: at(9_999) })).kind).toBe('skip');
    d = attempt(d, at(10_000), fail(0, 'timeout after 10000 ms'));
    expect(d).toMatchObject({ state: 'pending', lastHttpStatus: 0, nextAttemptAt: at(30_000).toISOString() });
    d = attempt(d, at(30_000), fail(503, 'HTTP 503'));
    expect(d).toMatchObject({ state: 'failed', lastHttpStatus: 503, lastError: 'HTTP 503', nextAttemptAt: null });
    expect(d.attempts.map((a) => [a.number, a.httpStatus])).toEqual([
      [1, 500],
      [2, 0],
      [3, 503],
    ]);
    expect(planClaim(d, ID, ctx({ now: at(99_000) })).kind).toBe('skip');
  });

  it('counts an attempt interrupted by a crash and never makes more than three', () => {
    // attempt 1 fails normally
    let d = attempt(delivery(), T0, fail());
    // attempt 2 is claimed, then the process dies: no outcome is ever recorded
    const claimed = planClaim(d, ID, ctx({ now: at(10_000) }));
    if (claimed.kind !== 'send') throw new Error('expected send');
    d = claimed.delivery;
    // while the lease runs the delivery is not due, so nobody sends attempt 3 beside it
    expect(planClaim(d, ID, ctx({ now: at(20_000) })).kind).toBe('skip');
    // after lease + backoff, attempt 3 is the next (the interrupted one counted)
    const due = new Date(Date.parse(d.nextAttemptAt!));
    expect(due.getTime()).toBe(at(10_000 + 15_000 + 20_000).getTime());
    const third = planClaim(d, ID, ctx({ now: due }));
    expect(third.kind === 'send' && third.attempt).toBe(3);
    if (third.kind !== 'send') return;
    expect(third.delivery.attempts[1]).toMatchObject({ number: 2, error: INTERRUPTED, httpStatus: 0 });
    // attempt 3 is interrupted too: the delivery ends failed without a 4th POST
    const last = third.delivery;
    const final = planClaim(last, ID, ctx({ now: new Date(Date.parse(last.nextAttemptAt!)) }));
    expect(final.kind).toBe('exhausted');
    if (final.kind !== 'exhausted') return;
    expect(final.delivery).toMatchObject({ state: 'failed', lastError: INTERRUPTED, nextAttemptAt: null });
    expect(final.delivery.attempts).toHaveLength(MAX_ATTEMPTS);
  });

  it('drops a late outcome of an attempt that is no longer in flight', () => {
    const plan = planClaim(delivery(), ID, ctx());
    if (plan.kind !== 'send') throw new Error('expected send');
    expect(applyOutcome(plan.delivery, 2, ok, T0, timing)).toBeNull();
    const done = applyOutcome(plan.delivery, 1, ok, T0, timing);
    expect(done && applyOutcome(done.delivery, 1, ok, T0, timing)).toBeNull();
  });

  it('fails at once when the target is refused (no retries)', () => {
    const d = attempt(delivery(), T0, {
      httpStatus: 0,
      error: 'target refused: 10.0.0.1 is private',
      durationMs: 0,
      refused: true,
    });
    expect(d).toMatchObject({ state: 'failed', lastError: 'target refused: 10.0.0.1 is private', nextAttemptAt: null });
    expect(d.attempts).toHaveLength(1);
  });

  it('treats a 3xx as a failed attempt', () => {
    const d = attempt(delivery(), T0, fail(302, 'HTTP 302 (redirects are not followed)'));
    expect(d).toMatchObject({ state: 'pending', lastHttpStatus: 302 });
  });
});

describe('ordering per transaction', () => {
  const lane = (over: Partial<LaneFields> = {}): LaneFields => ({
    organizationId: 'a00000000000000000000001',
    highestStartedSequence: 0,
    leaseUntil: null,
    leaseDeliveryId: null,
    updatedAt: T0.toISOString(),
    ...over,
  });

  it('waits while an earlier status of the same transaction is still pending', () => {
    const plan = planClaim(
      delivery(),
      ID,
      ctx({ earlierPending: { sequence: 1, nextAttemptAt: at(20_000).toISOString() } }),
    );
    expect(plan.kind).toBe('wait');
    if (plan.kind === 'wait') expect(plan.delivery.nextAttemptAt).toBe(at(20_000).toISOString());
    const soon = planClaim(delivery(), ID, ctx({ earlierPending: { sequence: 1, nextAttemptAt: T0.toISOString() } }));
    expect(soon.kind === 'wait' && soon.delivery.nextAttemptAt).toBe(at(1_000).toISOString());
  });

  it('supersedes an older status once a newer one was attempted, so it is never sent after it', () => {
    const plan = planClaim(delivery({ sequence: 2 }), ID, ctx({ lane: lane({ highestStartedSequence: 3 }) }));
    expect(plan.kind).toBe('superseded');
    if (plan.kind === 'superseded') {
      expect(plan.delivery).toMatchObject({ state: 'superseded', nextAttemptAt: null, attempts: [] });
      expect(plan.delivery.lastError).toMatch(/sequence 3/);
    }
  });

  it('retries its own sequence and waits for a lane leased by another delivery', () => {
    expect(planClaim(delivery({ sequence: 3 }), ID, ctx({ lane: lane({ highestStartedSequence: 3 }) })).kind).toBe(
      'send',
    );
    const busy = lane({ highestStartedSequence: 2, leaseUntil: at(5_000).toISOString(), leaseDeliveryId: 'other' });
    const plan = planClaim(delivery({ sequence: 3 }), ID, ctx({ lane: busy }));
    expect(plan.kind === 'wait' && plan.delivery.nextAttemptAt).toBe(at(5_000).toISOString());
    const expired = lane({ highestStartedSequence: 2, leaseUntil: at(-1).toISOString(), leaseDeliveryId: 'other' });
    expect(planClaim(delivery({ sequence: 3 }), ID, ctx({ lane: expired })).kind).toBe('send');
  });

  it('never starts a second attempt while its own lease runs', () => {
    const plan = planClaim(delivery(), ID, ctx());
    if (plan.kind !== 'send') throw new Error('expected send');
    const promoted = { ...plan.delivery, nextAttemptAt: T0.toISOString() };
    const again = planClaim(promoted, ID, ctx({ now: at(1_000), lane: plan.lane }));
    expect(again.kind === 'wait' && again.delivery.nextAttemptAt).toBe(plan.delivery.leaseUntil);
  });

  it('releases the lane only for the delivery holding it', () => {
    const held = lane({ leaseUntil: at(5_000).toISOString(), leaseDeliveryId: ID, highestStartedSequence: 2 });
    expect(releaseLane(held, 'other', T0)).toBeNull();
    expect(releaseLane(held, ID, T0)).toMatchObject({
      leaseUntil: null,
      leaseDeliveryId: null,
      highestStartedSequence: 2,
    });
  });
});

describe('sending again', () => {
  it('a final delivery gets a new round of three attempts, numbered on and marked with who asked', () => {
    let d = attempt(delivery(), T0, ok);
    expect(d.state).toBe('succeeded');
    const again = redeliver(d, 'ann@shop.example', at(60_000));
    expect(again).toMatchObject({ state: 'pending', nextAttemptAt: at(60_000).toISOString() });
    d = again!;
    d = attempt(d, at(60_000), fail());
    d = attempt(d, at(200_000), fail());
    expect(d.state).toBe('pending');
    // The round's backoff starts again from the base: attempt 2 of the round waits 2 x base.
    expect(d.nextAttemptAt).toBe(new Date(at(200_000).getTime() + 20_000).toISOString());
    d = attempt(d, at(400_000), fail());
    expect(d.state).toBe('failed');
    expect(d.attempts.map((a) => [a.number, a.requestedBy ?? null])).toEqual([
      [1, null],
      [2, 'ann@shop.example'],
      [3, 'ann@shop.example'],
      [4, 'ann@shop.example'],
    ]);
    expect(
      planClaim({ ...d, state: 'pending', nextAttemptAt: at(500_000).toISOString() }, ID, ctx({ now: at(500_000) }))
        .kind,
    ).toBe('exhausted');
    expect(redeliver(d, 'api_key:k1', at(600_000))?.redeliveries?.at(-1)).toEqual({
      requestedAt: at(600_000).toISOString(),
      requestedBy: 'api_key:k1',
      firstAttempt: 5,
    });
  });

  it('a delivery still being delivered is not sent again beside itself', () => {
    expect(redeliver(delivery(), 'ann@shop.example', T0)).toBeNull();
    expect(redeliver(delivery({ state: 'superseded' }), 'ann@shop.example', T0)).toBeNull();
  });
});
