import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, SecretBox, type Clock } from '@paymesh/core';
import { createStore, dropStoreDatabase, TEST_PG_URL, type DroppableStore } from '../../store/src';
import { IDEMPOTENCY_COLLECTION, IDEMPOTENCY_KEYS, IdempotencyRecords, type IdempotencyDoc } from '../src';

const PG_URL = TEST_PG_URL;
const database = `idem_test_${randomBytes(5).toString('hex')}`;
const keyring = `k1:${randomBytes(32).toString('base64')}`;
const answer = { status: 201, contentType: 'application/json; charset=utf-8', body: '{"id":"x"}' };

/**
 * The records on PostgreSQL, as two gateway replicas use them: two stores (two connection pools)
 * on one schema, so the unique (scope, key) index and compare-and-set decide, not process memory.
 */
describe('Idempotency-Key records on PostgreSQL, shared by two replicas', () => {
  let a: DroppableStore;
  let b: DroppableStore;
  const records = (store: DroppableStore, clock?: Clock) =>
    new IdempotencyRecords({
      collection: store.collection<IdempotencyDoc>(IDEMPOTENCY_KEYS),
      sealer: new SecretBox(keyring),
      ...(clock ? { clock } : {}),
      // The records' own wait between looks at a pending claim (part of the code under test), shortened.
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 10))),
    });

  beforeAll(async () => {
    a = await createStore({ url: PG_URL, database, maxConnections: 4 });
    b = await createStore({ url: PG_URL, database, maxConnections: 4 });
    await a.ensureCollection(IDEMPOTENCY_COLLECTION);
    await b.ensureCollection(IDEMPOTENCY_COLLECTION);
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropStoreDatabase({ url: PG_URL, database });
  });

  it('lets one of many requests on both replicas claim a key; the others replay its answer', async () => {
    const replicas = [records(a), records(b)];
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const begun = await replicas[i % 2]!.begin('key:k1|org:o1|live', 'race', 'f1');
        if (begun.kind === 'claimed') {
          await replicas[i % 2]!.complete(begun.claim, answer);
          return 'ran';
        }
        return begun.answer.body;
      }),
    );
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(1);
    expect(outcomes.filter((o) => o === answer.body)).toHaveLength(7);
    expect(await a.collection(IDEMPOTENCY_KEYS).count({ key: 'race' })).toBe(1);
  });

  it('takes over a dead holder by compare-and-set on the other replica, and purges expired records', async () => {
    const clock = new ManualClock('2026-05-01T12:00:00.000Z');
    const onA = records(a, clock);
    const onB = records(b, clock);
    const dead = await onA.begin('key:k1|org:o1|live', 'crashed', 'f1');
    expect(dead.kind).toBe('claimed');
    clock.advance(60_000);
    const taken = await onB.begin('key:k1|org:o1|live', 'crashed', 'f1');
    expect(taken.kind).toBe('claimed');
    if (dead.kind === 'claimed') expect(await onA.complete(dead.claim, answer)).toBe(false);
    if (taken.kind === 'claimed') expect(await onB.complete(taken.claim, answer)).toBe(true);
    expect((await onA.begin('key:k1|org:o1|live', 'crashed', 'f1')).kind).toBe('replay');

    clock.advance(24 * 3_600_000);
    const fresh = await onA.begin('key:k1|org:o1|live', 'fresh', 'f1');
    expect(await onB.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await a.collection(IDEMPOTENCY_KEYS).count({ key: 'crashed' })).toBe(0);
    expect(await a.collection(IDEMPOTENCY_KEYS).count({ key: 'fresh' })).toBe(1);
    if (fresh.kind === 'claimed') await onA.release(fresh.claim);
  });
});
