import { randomBytes } from 'node:crypto';
import { letTimePass, waitFor } from '../../../test/support/kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EMPTY_TARGET_ALLOW_LIST,
  NotFoundError,
  UnavailableError,
  createLogger,
  newObjectId,
  parseTargetAllowList,
  systemClock,
} from '@paymesh/core';
import { IpnHeaders, verifyIpn, type TransactionStatusChanged } from '@paymesh/contracts';
import { createStore, dropStoreDatabase, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import { IpnReceiver } from '../../../test/support/ipn-receiver';
import type { IpnDeps, SigningSecrets } from '../src/app/deps';
import { listDeliveries } from '../src/app/list-deliveries';
import { recordStatusChange, type ClaimOnRecord } from '../src/app/record-status-change';
import { sendClaimed } from '../src/app/process-delivery';
import { HttpIpnSender, type IpnRequest, type IpnSender } from '../src/delivery/http-sender';
import { DeliveryScheduler } from '../src/delivery/scheduler';
import type { AttemptOutcome } from '../src/domain/delivery';
import { collections, DELIVERIES, LANES, type DeliveryDoc } from '../src/store/collections';

const PG_URL = TEST_PG_URL;
const database = `ipn_test_${randomBytes(5).toString('hex')}`;
const SECRET = 'whsec_integration-test-secret';
const ORG = newObjectId();
const SITE = newObjectId();
const timing = { backoffBaseMs: 200, timeoutMs: 600, leaseMarginMs: 200, waitFloorMs: 100 };
const logger = createLogger({ service: 'notifications-ipn-test', level: 'silent' });
/** The test receiver listens on 127.0.0.1: allow-listed as an operator would for a local receiver. */
const LOCAL_RECEIVER = parseTargetAllowList('127.0.0.1');

let store: DroppableStore;
const receiver = new IpnReceiver();
let base: string;
const schedulers: DeliveryScheduler[] = [];
const senders: IpnSender[] = [];

class Secrets implements SigningSecrets {
  failures = 0;
  async get(organizationId: string, siteId: string): Promise<string> {
    if (this.failures > 0) {
      this.failures--;
      throw new UnavailableError('checkout unavailable');
    }
    if (organizationId !== ORG || siteId !== SITE) throw new NotFoundError('site not found');
    return SECRET;
  }
}

function deps(over: Partial<IpnDeps> = {}): IpnDeps {
  const sender = over.sender ?? new HttpIpnSender({ timeoutMs: timing.timeoutMs, allowedTargets: LOCAL_RECEIVER });
  senders.push(sender);
  return { store, logger, clock: systemClock, timing, secrets: new Secrets(), sender, ...over };
}

function startScheduler(d: IpnDeps, concurrency = 4): DeliveryScheduler {
  const s = new DeliveryScheduler(d, { pollIntervalMs: 50, concurrency });
  schedulers.push(s);
  s.start();
  return s;
}

function change(over: Partial<TransactionStatusChanged> & { transactionId: string }): TransactionStatusChanged {
  return {
    organizationId: ORG,
    siteId: SITE,
    mode: 'live',
    status: 1,
    previousStatus: 0,
    subState: null,
    externalReference: 'order-1',
    ipnUrl: `${base}/ipn/${over.transactionId}`,
    sequence: 1,
    changedAt: new Date().toISOString(),
    ...over,
  };
}

async function deliveriesOf(transactionId: string): Promise<DeliveryDoc[]> {
  return listDeliveries({ store }, ORG, transactionId);
}

/** A new transaction whose status of sequence 3 a started scheduler has delivered, and the deps it runs with. */
async function newerStatusDelivered(): Promise<{ tx: string; d: IpnDeps }> {
  const tx = newObjectId();
  const d = deps();
  startScheduler(d);
  await recordStatusChange(d, change({ transactionId: tx, sequence: 3, status: 1 }), 'e3');
  await waitFor(async () => (await deliveriesOf(tx))[0]?.state === 'succeeded');
  return { tx, d };
}

/** The status of sequence 2 of `tx` was superseded without an attempt: the receiver got status 1 only. */
async function expectOlderSuperseded(tx: string): Promise<void> {
  const older = await waitFor(async () =>
    (await deliveriesOf(tx)).find((x) => x.sequence === 2 && x.state !== 'pending'),
  );
  expect(older).toMatchObject({ state: 'superseded', attempts: [] });
  expect(receiver.at(`/ipn/${tx}`).map((r) => JSON.parse(r.rawBody.toString()).status)).toEqual([1]);
}

const final = (transactionId: string) =>
  waitFor(
    async () => {
      const [d] = await deliveriesOf(transactionId);
      return d && d.state !== 'pending' ? d : undefined;
    },
    { stepMs: 25, what: `the IPN delivery of ${transactionId} to end` },
  );

/**
 * Sentinel: one more delivery, recorded after the actions under test and answered at once. When it
 * has succeeded, the scheduler has passed over everything that was due before it.
 */
async function sentinelDelivered(d: IpnDeps): Promise<void> {
  const tx = newObjectId();
  const respond = receiver.respond;
  receiver.respond = (r, nth) => (r.path === `/sentinel/${tx}` ? 200 : respond(r, nth));
  await recordStatusChange(d, change({ transactionId: tx, ipnUrl: `${base}/sentinel/${tx}` }), `evt-sentinel-${tx}`);
  expect((await final(tx)).state).toBe('succeeded');
}

beforeAll(async () => {
  store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  base = await receiver.start();
});

afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
  await Promise.all(senders.splice(0).map((s) => s.close()));
  receiver.respond = () => 200;
});

afterAll(async () => {
  await receiver.stop();
  await store.close();
  await dropStoreDatabase({ url: PG_URL, database });
});

describe('IPN delivery engine (PostgreSQL + local receiver)', () => {
  it('sends one signed POST that verifies with the site secret and records success', async () => {
    const tx = newObjectId();
    startScheduler(deps());
    expect(
      await recordStatusChange(
        deps(),
        change({ transactionId: tx, status: 1, externalReference: 'order-77' }),
        'evt-1',
      ),
    ).toBe('created');
    const d = await final(tx);
    expect(d).toMatchObject({ state: 'succeeded', lastHttpStatus: 200, lastError: null, nextAttemptAt: null });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ number: 1, httpStatus: 200, error: '' });
    const [req, ...more] = receiver.at(`/ipn/${tx}`);
    expect(more).toHaveLength(0);
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.rawBody.toString())).toEqual({ id: tx, externalReference: 'order-77', status: 1 });
    expect(verifyIpn(SECRET, req!.headers, req!.rawBody, 300)).toEqual({
      valid: true,
      timestamp: Number(req!.headers['x-signature-timestamp']),
    });
    expect(verifyIpn('whsec_wrong', req!.headers, req!.rawBody, 300).valid).toBe(false);
  });

  it('omits an empty externalReference from the body', async () => {
    const tx = newObjectId();
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx, status: 2, externalReference: null }), 'evt');
    await final(tx);
    expect(receiver.at(`/ipn/${tx}`)[0]!.rawBody.toString()).toBe(`{"id":"${tx}","status":2}`);
  });

  it('retries a failing receiver with exponential backoff and stops after exactly 3 attempts', async () => {
    const tx = newObjectId();
    receiver.respond = () => 500;
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx }), 'evt');
    const d = await final(tx);
    expect(d).toMatchObject({ state: 'failed', lastHttpStatus: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect(d.attempts.map((a) => [a.number, a.httpStatus, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
    ]);
    // No fourth attempt: the backoff after the third (a fourth would be due within three base
    // delays) passes without a POST. Time itself is the subject here.
    await letTimePass(3 * timing.backoffBaseMs, 'the time a fourth attempt would have been due');
    const got = receiver.at(`/ipn/${tx}`);
    expect(got).toHaveLength(3);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(timing.backoffBaseMs - 10);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(2 * timing.backoffBaseMs - 10);
    // each attempt is signed afresh and verifies
    for (const r of got) expect(verifyIpn(SECRET, r.headers, r.rawBody, 300).valid).toBe(true);
  });

  it('succeeds on a later attempt after failures', async () => {
    const tx = newObjectId();
    receiver.respond = (_r, nth) => (nth === 1 ? 503 : 202);
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx }), 'evt');
    const d = await final(tx);
    expect(d.state).toBe('succeeded');
    expect(d.attempts.map((a) => a.httpStatus)).toEqual([503, 202]);
    expect(d.lastHttpStatus).toBe(202);
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const tx = newObjectId();
    receiver.respond = (r) => (r.path.startsWith('/ipn/') ? { redirect: `${base}/elsewhere/${tx}` } : 200);
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx }), 'evt');
    const d = await final(tx);
    expect(d.state).toBe('failed');
    expect(d.attempts.map((a) => [a.httpStatus, a.error])).toEqual(
      Array(3).fill([302, 'HTTP 302 (redirects are not followed)']),
    );
    expect(receiver.at(`/elsewhere/${tx}`)).toHaveLength(0);
  });

  it('records a timeout when the receiver does not answer in time', async () => {
    const tx = newObjectId();
    receiver.respond = (_r, nth) => (nth === 1 ? 'hang' : 200);
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx }), 'evt');
    const d = await final(tx);
    expect(d.state).toBe('succeeded');
    expect(d.attempts[0]).toMatchObject({ httpStatus: 0, error: `timeout after ${timing.timeoutMs} ms` });
    expect(d.attempts[0]!.durationMs).toBeGreaterThanOrEqual(timing.timeoutMs - 50);
  });

  it('creates one delivery per (transaction, sequence) however often the event comes', async () => {
    const tx = newObjectId();
    const d = deps();
    expect(await recordStatusChange(d, change({ transactionId: tx }), 'evt-a')).toBe('created');
    expect(await recordStatusChange(d, change({ transactionId: tx }), 'evt-a')).toBe('exists');
    expect(await recordStatusChange(d, change({ transactionId: tx }), 'evt-b')).toBe('exists');
    expect(await recordStatusChange(d, change({ transactionId: newObjectId(), ipnUrl: null }), 'evt-c')).toBe(
      'no-ipn-url',
    );
    startScheduler(d);
    await final(tx);
    expect(await deliveriesOf(tx)).toHaveLength(1);
    await sentinelDelivered(d);
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(1);
  });

  it('lets two replicas work side by side without ever sending an attempt twice', async () => {
    receiver.respond = () => 500;
    const txs = Array.from({ length: 8 }, () => newObjectId());
    const d = deps();
    for (const tx of txs) await recordStatusChange(d, change({ transactionId: tx }), `evt-${tx}`);
    startScheduler(deps(), 4);
    startScheduler(deps(), 4);
    for (const tx of txs) await final(tx);
    // No attempt after the third, from either replica: the time a fourth would have been due passes.
    await letTimePass(3 * timing.backoffBaseMs, 'the time a fourth attempt would have been due');
    for (const tx of txs) {
      const [doc] = await deliveriesOf(tx);
      expect(doc!.attempts.map((a) => a.number)).toEqual([1, 2, 3]);
      expect(receiver.at(`/ipn/${tx}`)).toHaveLength(3);
    }
  });

  it('delivers the statuses of one transaction in sequence order, never an older after a newer', async () => {
    const tx = newObjectId();
    // the first change (declined card: failed) fails twice; the second (paid on retry) must wait for it
    receiver.respond = (r, nth) => (JSON.parse(r.rawBody.toString()).status === 2 && nth <= 2 ? 500 : 200);
    const d = deps();
    await recordStatusChange(d, change({ transactionId: tx, sequence: 2, status: 2, previousStatus: 0 }), 'e2');
    await recordStatusChange(d, change({ transactionId: tx, sequence: 3, status: 1, previousStatus: 2 }), 'e3');
    startScheduler(d);
    await waitFor(async () => (await deliveriesOf(tx)).every((x) => x.state === 'succeeded'));
    const statuses = receiver.at(`/ipn/${tx}`).map((r) => JSON.parse(r.rawBody.toString()).status);
    expect(statuses).toEqual([2, 2, 2, 1]);
    const list = await deliveriesOf(tx);
    expect(list.map((x) => x.sequence)).toEqual([3, 2]);
  });

  it('sends no IPN for the status a transaction is created with', async () => {
    const tx = newObjectId();
    const d = deps();
    expect(
      await recordStatusChange(d, change({ transactionId: tx, sequence: 1, status: 0, previousStatus: null }), 'e1'),
    ).toBe('initial-status');
    expect(await deliveriesOf(tx)).toEqual([]);
  });

  it('supersedes a status change that arrives after a newer one was sent', async () => {
    const { tx, d } = await newerStatusDelivered();
    await recordStatusChange(d, change({ transactionId: tx, sequence: 2, status: 0 }), 'e2');
    await expectOlderSuperseded(tx);
  });

  it('sends a delivery handed over by the consumer without a pass over the store', async () => {
    const tx = newObjectId();
    const d = deps();
    // Polls only hourly: only the hand-over can make it send now.
    const s = new DeliveryScheduler(d, { pollIntervalMs: 3_600_000, concurrency: 1 });
    schedulers.push(s);
    s.start();
    expect(await recordStatusChange(d, change({ transactionId: tx }), 'evt', (delivery) => s.offer(delivery))).toBe(
      'created',
    );
    const sent = await final(tx);
    expect(sent).toMatchObject({ state: 'succeeded', attempts: [expect.objectContaining({ httpStatus: 200 })] });
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(1);
  });

  describe("a transaction's first IPN stored already claimed", () => {
    /** The consumer's hook: `send` replaced to play a crash between the claim and the POST. */
    const claimOn = (d: IpnDeps, s: DeliveryScheduler, send?: ClaimOnRecord['send']): ClaimOnRecord => ({
      reserve: (id) => s.reserve(id),
      deps: d,
      send: send ?? ((id, secret, plan, stored) => sendClaimed(d, id, secret, plan, stored)),
    });
    const hourly = (d: IpnDeps, concurrency = 1): DeliveryScheduler => {
      const s = new DeliveryScheduler(d, { pollIntervalMs: 3_600_000, concurrency });
      schedulers.push(s);
      s.start();
      return s;
    };

    it('stores the delivery with its first attempt claimed and the lane taken, sends it once in the held slot, and a redelivered event changes nothing', async () => {
      const tx = newObjectId();
      const d = deps();
      const s = hourly(d);
      // The POST waits until the stored claim has been looked at.
      let go = (): void => undefined;
      const looked = new Promise<void>((resolve) => {
        go = resolve;
      });
      const held = claimOn(d, s, async (id, secret, plan, stored) => {
        await looked;
        return sendClaimed(d, id, secret, plan, stored);
      });
      expect(await recordStatusChange(d, change({ transactionId: tx, sequence: 2 }), 'evt', undefined, held)).toBe(
        'created',
      );
      const [claimed] = await deliveriesOf(tx);
      expect(claimed).toMatchObject({ state: 'pending', inFlightAttempt: 1, attempts: [{ number: 1 }] });
      expect(await store.collection(LANES).get(tx)).toMatchObject({
        highestStartedSequence: 2,
        leaseDeliveryId: claimed?.id,
      });
      // Its slot is the scheduler's only one: nothing else can take it meanwhile.
      expect(s.reserve(newObjectId())).toBeNull();
      go();
      const sent = await final(tx);
      expect(sent).toMatchObject({
        state: 'succeeded',
        attempts: [expect.objectContaining({ number: 1, httpStatus: 200 })],
      });
      expect(
        await recordStatusChange(d, change({ transactionId: tx, sequence: 2 }), 'evt', undefined, claimOn(d, s)),
      ).toBe('exists');
      // A polling scheduler: whatever the redelivery had left due would go out before the sentinel.
      startScheduler(d);
      await sentinelDelivered(d);
      expect(receiver.at(`/ipn/${tx}`)).toHaveLength(1);
      expect(await deliveriesOf(tx)).toHaveLength(1);
    });

    it('records it unclaimed when no slot is free; the scheduler sends it', async () => {
      const tx = newObjectId();
      const d = deps();
      const s = hourly(d);
      const busy = s.reserve(newObjectId());
      expect(busy).not.toBeNull();
      const offered: DeliveryDoc[] = [];
      expect(
        await recordStatusChange(
          d,
          change({ transactionId: tx, sequence: 2 }),
          'evt',
          (x) => offered.push(x),
          claimOn(d, s),
        ),
      ).toBe('created');
      expect(offered).toEqual([expect.objectContaining({ attempts: [], inFlightAttempt: null })]);
      busy?.release();
      for (const x of offered) s.offer(x);
      expect(await final(tx)).toMatchObject({ state: 'succeeded', attempts: [expect.objectContaining({ number: 1 })] });
    });

    it('after a crash between the claim and the POST, sends it again once the attempt lease ends', async () => {
      const tx = newObjectId();
      const d = deps();
      const s = hourly(d);
      // The process "dies" after the statement: nothing is sent, the slot is freed.
      const crashed = claimOn(d, s, async () => 'outcome-dropped');
      expect(await recordStatusChange(d, change({ transactionId: tx, sequence: 2 }), 'evt', undefined, crashed)).toBe(
        'created',
      );
      const [held] = await deliveriesOf(tx);
      expect(held).toMatchObject({
        state: 'pending',
        inFlightAttempt: 1,
        attempts: [expect.objectContaining({ number: 1 })],
      });
      expect(receiver.at(`/ipn/${tx}`)).toHaveLength(0);
      // Another replica's pass (polling) finds it due after the lease and the backoff.
      startScheduler(d);
      const sent = await final(tx);
      expect(sent).toMatchObject({ state: 'succeeded' });
      expect(sent.attempts.map((a) => a.number)).toEqual([1, 2]);
      expect(receiver.at(`/ipn/${tx}`)).toHaveLength(1);
    });

    it('falls back to the plain record when a later status holds the lane already', async () => {
      const { tx, d } = await newerStatusDelivered();
      const s = hourly(d);
      expect(
        await recordStatusChange(
          d,
          change({ transactionId: tx, sequence: 2, status: 2 }),
          'e2',
          (x) => s.offer(x),
          claimOn(d, s),
        ),
      ).toBe('created');
      await expectOlderSuperseded(tx);
    });
  });

  it('with only hourly polls, a later status waiting behind an earlier one goes out as soon as the earlier one is delivered', async () => {
    const tx = newObjectId();
    // A long attempt lease: the later status, waiting for the earlier one's lane, is due only in a
    // minute unless the earlier one's delivery lets it through (the pass that follows it).
    const d = deps({
      timing: { ...timing, timeoutMs: 60_000 },
      sender: new HttpIpnSender({ timeoutMs: 60_000, allowedTargets: LOCAL_RECEIVER }),
    });
    const s = new DeliveryScheduler(d, { pollIntervalMs: 3_600_000, concurrency: 4 });
    schedulers.push(s);
    s.start();
    await recordStatusChange(d, change({ transactionId: tx, sequence: 2, status: 2, previousStatus: 0 }), 'e2', (x) =>
      s.offer(x),
    );
    await recordStatusChange(d, change({ transactionId: tx, sequence: 3, status: 1, previousStatus: 2 }), 'e3', (x) =>
      s.offer(x),
    );
    await waitFor(async () => (await deliveriesOf(tx)).every((x) => x.state === 'succeeded'), {
      what: 'both IPNs delivered well before the later one would be due by itself',
    });
    expect(receiver.at(`/ipn/${tx}`).map((r) => JSON.parse(r.rawBody.toString()).status)).toEqual([2, 1]);
  });

  it('uses no attempt while checkout cannot hand out the signing secret', async () => {
    const tx = newObjectId();
    const secrets = new Secrets();
    secrets.failures = 1;
    const d = deps({ secrets });
    await recordStatusChange(d, change({ transactionId: tx }), 'evt');
    const s = new DeliveryScheduler(d, { pollIntervalMs: 50, concurrency: 1 });
    schedulers.push(s);
    s.start();
    await waitFor(async () => secrets.failures === 0);
    // The postponement is written after the refusal: wait for it, not for the refusal alone.
    const postponed = await waitFor(async () => {
      const [x] = await deliveriesOf(tx);
      return x?.nextAttemptAt && Date.parse(x.nextAttemptAt) > Date.now() + 3_000 ? x : undefined;
    });
    expect(postponed).toMatchObject({ state: 'pending', attempts: [] });
  });

  it('fails without an attempt when the site is gone', async () => {
    const tx = newObjectId();
    startScheduler(deps());
    await recordStatusChange(deps(), change({ transactionId: tx, siteId: newObjectId() }), 'evt');
    const d = await final(tx);
    expect(d).toMatchObject({ state: 'failed', attempts: [], lastError: 'site not found: no signing secret' });
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(0);
  });

  it('counts an attempt cut off by a crash as made ("interrupted") and carries on from the store', async () => {
    const tx = newObjectId();
    let release: (o: AttemptOutcome) => void = () => undefined;
    const hanging: IpnSender = {
      send: (_req: IpnRequest) => new Promise<AttemptOutcome>((resolve) => (release = resolve)),
      close: async () => undefined,
    };
    const crashed = deps({ sender: hanging });
    await recordStatusChange(crashed, change({ transactionId: tx }), 'evt');
    const dead = new DeliveryScheduler(crashed, { pollIntervalMs: 50, concurrency: 1 });
    dead.start();
    await waitFor(async () => (await deliveriesOf(tx))[0]?.inFlightAttempt === 1);
    // The "restarted" replica takes over once the lease and the backoff have passed.
    startScheduler(deps());
    const d = await final(tx);
    expect(d.state).toBe('succeeded');
    expect(d.attempts.map((a) => [a.number, a.httpStatus, a.error])).toEqual([
      [1, 0, 'interrupted'],
      [2, 200, ''],
    ]);
    expect(Date.parse(d.attempts[1]!.at) - Date.parse(d.attempts[0]!.at)).toBeGreaterThanOrEqual(
      timing.timeoutMs + timing.leaseMarginMs + timing.backoffBaseMs - 10,
    );
    // The cut-off attempt's late outcome changes nothing.
    release({ httpStatus: 200, error: '', durationMs: 1, refused: false });
    await dead.stop();
    expect((await deliveriesOf(tx))[0]!.attempts.map((a) => a.error)).toEqual(['interrupted', '']);
  });

  it('lists deliveries only to the owning organization, newest first', async () => {
    const tx = newObjectId();
    const d = deps();
    await recordStatusChange(d, change({ transactionId: tx, sequence: 1 }), 'e1');
    await recordStatusChange(d, change({ transactionId: tx, sequence: 2 }), 'e2');
    expect((await listDeliveries({ store }, ORG, tx)).map((x) => x.sequence)).toEqual([2, 1]);
    expect(await listDeliveries({ store }, newObjectId(), tx)).toEqual([]);
    await expect(listDeliveries({ store }, 'nope', tx)).rejects.toMatchObject({ field: 'organizationId' });
    await store.collection<DeliveryDoc>(DELIVERIES).deleteMany({ transactionId: tx });
  });
});

describe('SSRF guard', () => {
  const guarded = () =>
    deps({ sender: new HttpIpnSender({ timeoutMs: timing.timeoutMs, allowedTargets: EMPTY_TARGET_ALLOW_LIST }) });

  it('refuses a loopback IP literal without connecting, as one failed attempt', async () => {
    const tx = newObjectId();
    const d = guarded();
    startScheduler(d);
    await recordStatusChange(d, change({ transactionId: tx }), 'evt');
    const doc = await final(tx);
    expect(doc).toMatchObject({
      state: 'failed',
      lastHttpStatus: 0,
      lastError: 'target refused: target address 127.0.0.1 is loopback',
    });
    expect(doc.attempts).toHaveLength(1);
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(0);
  });

  it('refuses a host name that resolves to loopback (checked at connect time)', async () => {
    const tx = newObjectId();
    const d = guarded();
    startScheduler(d);
    await recordStatusChange(
      d,
      change({ transactionId: tx, ipnUrl: `${base.replace('127.0.0.1', 'localhost')}/ipn/${tx}` }),
      'evt',
    );
    const doc = await final(tx);
    expect(doc.state).toBe('failed');
    expect(doc.lastError).toMatch(/^target refused: localhost resolves only to non-public addresses \(loopback\)$/);
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(0);
  });

  it('refuses the obfuscated and mapped forms of loopback and the metadata address', async () => {
    const port = new URL(base).port;
    for (const url of [
      `http://2130706433:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      `http://0x7f.1:${port}/x`,
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const res = await guarded().sender.send({ url, body: '{}', headers: {} });
      expect(res, url).toMatchObject({ httpStatus: 0, refused: true });
    }
    expect(receiver.at('/x')).toHaveLength(0);
  });

  it('sends to the same receiver when its address is allow-listed (IPN_ALLOWED_TARGETS)', async () => {
    const sender = new HttpIpnSender({ timeoutMs: timing.timeoutMs, allowedTargets: LOCAL_RECEIVER });
    senders.push(sender);
    const res = await sender.send({ url: `${base.replace('127.0.0.1', 'localhost')}/direct`, body: '{}', headers: {} });
    expect(res).toMatchObject({ httpStatus: 200, error: '', refused: false });
    expect(receiver.at('/direct')).toHaveLength(1);
  });

  it('reports an unreachable receiver as a network error', async () => {
    const sender = new HttpIpnSender({ timeoutMs: timing.timeoutMs, allowedTargets: LOCAL_RECEIVER });
    senders.push(sender);
    const res = await sender.send({
      url: 'http://127.0.0.1:1/ipn',
      body: '{}',
      headers: { [IpnHeaders.timestamp]: '1' },
    });
    expect(res.httpStatus).toBe(0);
    expect(res.refused).toBe(false);
    expect(res.error).toMatch(/^network error: .*ECONNREFUSED/);
    expect(res.error).not.toContain('127.0.0.1');
  });
});
