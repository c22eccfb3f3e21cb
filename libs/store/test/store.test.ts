import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError, newObjectId } from '@paymesh/core';
import { PostgresStore, createStore, dropStoreDatabase } from '../src';
import { TEST_PG_URL, testDatabase, waitFor } from '../../../test/support/kit';
import { runStoreContract } from './contract';
import { findContainerRuntime, type MongoContainer } from './mongo-container';

const PG_URL = TEST_PG_URL;
const MONGODB_URL = process.env.MONGODB_URL;

runStoreContract('postgres', () => createStore({ url: PG_URL, database: testDatabase('store_test') }));

if (MONGODB_URL) {
  runStoreContract('mongodb', () => createStore({ url: MONGODB_URL, database: testDatabase('store_test') }));
} else {
  const runtime = await findContainerRuntime();
  if (runtime.available) {
    let mongo: MongoContainer | undefined;
    // File-level hooks run around the contract's own: the container outlives the store on it.
    beforeAll(async () => {
      mongo = await runtime.start();
    }, 300_000);
    afterAll(async () => {
      await mongo?.stop();
    }, 60_000);
    runStoreContract('mongodb (testcontainers)', () =>
      createStore({ url: mongo!.url, database: testDatabase('store_test') }),
    );
  } else {
    console.log(`store tests: MongoDB contract not run (no MONGODB_URL, and no container runtime: ${runtime.reason})`);
  }
}

describe('PostgresStore operations', () => {
  const database = testDatabase('store_ops');
  let store: PostgresStore;
  /** Warnings the store logged (an idle connection that failed is one). */
  const warnings: string[] = [];

  beforeAll(async () => {
    store = new PostgresStore({ url: PG_URL, database, logger: { warn: (_obj, msg) => warnings.push(msg ?? '') } });
    await store.init();
  });

  afterAll(async () => {
    await dropStoreDatabase({ url: PG_URL, database });
    await store.close();
  });

  it('keeps one schema per service with a JSONB table per collection', async () => {
    await store.ensureCollection({
      name: 'payments',
      indexes: [{ name: 'ref', fields: ['provider.ref'], unique: true }],
    });
    await store.ensureCollection({
      name: 'payments',
      indexes: [{ name: 'ref', fields: ['provider.ref'], unique: true }],
    });
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [database],
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(['_blobs', '_outbox', '_sequences', 'payments']);
      const indexes = await client.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'payments__ref'`,
        [database],
      );
      expect(indexes.rows[0]?.indexdef).toContain(`(doc #>> '{provider,ref}'::text[])`);
    } finally {
      await client.end();
    }
  });

  it('recovers by itself when its server connections are killed (as in a restart)', async () => {
    const payments = store.collection<{ id: string; version: number; n: number }>('payments');
    await payments.insert({ n: 1 });
    const admin = new Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`paymesh-store:${database}`],
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      // The pool has noticed each killed idle connection (it drops it and says so).
      await waitFor(
        () => warnings.filter((m) => m.includes('idle connection failed')).length >= (killed.rowCount ?? 0),
        'the pool to notice its killed connections',
      );
    } finally {
      await admin.end();
    }
    await expect(store.ping()).resolves.toBeUndefined();
    expect(await payments.count({ n: 1 })).toBe(1);
    await store.transaction(async (tx) => {
      await tx.collection<{ id: string; version: number; n: number }>('payments').insert({ n: 2 });
    });
    expect(await payments.count({})).toBe(2);
  });

  it('ping fails quickly when the server is unreachable', async () => {
    const dead = new PostgresStore({ url: 'postgres://postgres@127.0.0.1:1/postgres', database });
    const started = Date.now();
    try {
      await expect(dead.ping()).rejects.toThrow();
    } finally {
      await dead.close();
    }
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('maps data errors the server raises to ValidationError, never a raw database error', async () => {
    const payments = store.collection<{ id: string; version: number; n: number }>('payments');
    const doc = await payments.insert({ n: 1 });
    // An expected version beyond the integer column: numeric out of range (22003) on the server.
    const outOfRange = await payments.replace(doc.id, 2 ** 40, { n: 2 }).catch((err: unknown) => err);
    expect(outOfRange).toBeInstanceOf(ValidationError);
    // Event payloads do not pass through document validation: a NUL reaches jsonb (22P05).
    const nul = await store
      .transaction((tx) =>
        tx.enqueue({ id: 'evt-nul', subject: 'test.thing.happened', payload: { note: 'a\u0000b' }, headers: {} }),
      )
      .catch((err: unknown) => err);
    expect(nul).toBeInstanceOf(ValidationError);
    expect(await store.outbox.pending(10)).toEqual([]);
    expect(await payments.get(doc.id)).toEqual(doc);
  });

  it('counts statements: compare-and-set takes one, a paged find one, with a total two unless the page is short', async () => {
    const payments = store.collection<{ id: string; version: number; n: number }>('payments');
    const doc = await payments.insert({ n: 10 });
    const count = async (op: () => Promise<unknown>) => {
      const before = store.stats().statements;
      await op().catch(() => undefined);
      return store.stats().statements - before;
    };
    expect(await count(() => payments.replace(doc.id, doc.version, { n: 11 }))).toBe(1);
    expect(await count(() => payments.replace(doc.id, doc.version, { n: 12 }))).toBe(1); // conflict, told apart in the same statement
    expect(await count(() => payments.replace('000000000000000000000000', 1, { n: 1 }))).toBe(1); // not found, likewise
    expect(await count(() => payments.find({}, { limit: 5 }))).toBe(1);
    // A short page proves its total; a full page needs the count.
    expect(await count(() => payments.find({}, { limit: 5, total: true }))).toBe(1);
    await payments.insert({ n: 20 });
    expect(await count(() => payments.find({}, { limit: 1, total: true }))).toBe(2);
    // A transaction that only writes: one statement (the events and their NOTIFY), no BEGIN/COMMIT.
    expect(
      await count(() =>
        store.transaction((tx) =>
          tx.enqueue([
            { id: 'evt-count-1', subject: 'test.thing.happened', payload: {}, headers: {} },
            { id: 'evt-count-2', subject: 'test.thing.happened', payload: {}, headers: {} },
          ]),
        ),
      ),
    ).toBe(1);
    expect((await store.outbox.pending(10)).map((e) => e.id)).toEqual(['evt-count-1', 'evt-count-2']);
    await store.outbox.markPublished(['evt-count-1', 'evt-count-2']);
  });

  describe('a transaction sends its writes and events together at the end', () => {
    type Doc = { id: string; version: number; n: number };
    const statements = async <R>(op: () => Promise<R>): Promise<{ n: number; result: R | unknown }> => {
      const before = store.stats().statements;
      const result = await op().catch((err: unknown) => err);
      return { n: store.stats().statements - before, result };
    };
    const event = (id: string) => ({ id, subject: 'test.batch.happened', payload: { id }, headers: {} });
    const outboxIds = async (prefix: string) =>
      (await store.outbox.pending(100)).map((e) => e.id).filter((id) => id.startsWith(prefix));

    beforeAll(async () => {
      for (const name of ['batched', 'batched_counters', 'batched_other']) await store.ensureCollection({ name });
    });

    it('read, then insert, compare-and-set, counters and events: the read and one statement, all written', async () => {
      const docs = store.collection<Doc>('batched');
      const held = await docs.insert({ n: 1 });
      const { n, result } = await statements(() =>
        store.transaction(async (tx) => {
          const c = tx.collection<Doc>('batched');
          const cur = await c.get(held.id);
          const inserted = await c.insert({ n: 100 });
          const replaced = await c.replace(held.id, cur!.version, { n: cur!.n + 1 });
          await tx
            .collection<Doc & { c?: Record<string, number> }>('batched_counters')
            .addToCounters('c', [{ id: 'ctr', init: { n: 0 }, deltas: { a: 2 } }]);
          await tx.enqueue([event('b1-1'), event('b1-2')]);
          await tx.enqueue(event('b1-3'), { origin: 'another writer' });
          return { inserted, replaced };
        }),
      );
      expect(n).toBe(2);
      const { inserted, replaced } = result as { inserted: Doc; replaced: Doc };
      expect(await docs.get(inserted.id)).toEqual(inserted);
      expect(await docs.get(held.id)).toEqual(replaced);
      expect(replaced).toMatchObject({ version: 2, n: 2 });
      expect(await store.collection<Doc & { c?: Record<string, number> }>('batched_counters').get('ctr')).toMatchObject(
        {
          c: { a: 2 },
        },
      );
      // In the order they were enqueued, whatever the call.
      expect(await outboxIds('b1-')).toEqual(['b1-1', 'b1-2', 'b1-3']);
      await store.outbox.markPublished(['b1-1', 'b1-2', 'b1-3']);
    });

    it('a compare-and-set that misses fails the whole statement: VERSION_CONFLICT or not found, nothing written', async () => {
      const docs = store.collection<Doc>('batched');
      const held = await docs.insert({ n: 1 });
      await docs.replace(held.id, 1, { n: 2 });
      let newId = '';
      const conflict = await store
        .transaction(async (tx) => {
          newId = (await tx.collection<Doc>('batched').insert({ n: 7 })).id;
          await tx.collection<Doc>('batched').replace(held.id, 1, { n: 3 });
          await tx.enqueue(event('b2-1'));
        })
        .catch((err: unknown) => err);
      expect(conflict).toMatchObject({ code: 'VERSION_CONFLICT' });
      expect(String((conflict as Error).message)).toContain('batched');
      expect(await docs.get(newId)).toBeNull();
      expect(await docs.get(held.id)).toMatchObject({ version: 2, n: 2 });
      expect(await outboxIds('b2-')).toEqual([]);

      const missing = await store
        .transaction(async (tx) => {
          await tx.collection<Doc>('batched').replace('no-such-doc', 1, { n: 3 });
          await tx.enqueue(event('b2-2'));
        })
        .catch((err: unknown) => err);
      expect(missing).toMatchObject({ kind: 'not_found' });
      expect(await outboxIds('b2-')).toEqual([]);
    });

    it('a taken key fails the whole statement with DUPLICATE_KEY naming the collection', async () => {
      const docs = store.collection<Doc>('batched');
      const taken = await docs.insert({ n: 1 });
      const err = await store
        .transaction(async (tx) => {
          await tx.collection<Doc>('batched_other').insert({ id: 'b3-new', n: 1 });
          await tx.collection<Doc>('batched').insert({ id: taken.id, n: 2 });
          await tx.enqueue(event('b3-1'));
        })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'DUPLICATE_KEY' });
      expect(String((err as Error).message)).toContain('batched');
      expect(await store.collection<Doc>('batched_other').get('b3-new')).toBeNull();
      expect(await outboxIds('b3-')).toEqual([]);
    });

    it('a numbered insert takes its number in the same one statement as the other writes and events', async () => {
      const key = `batched-numbered-${newObjectId()}`;
      const rowsBefore = store.stats().rowsWritten;
      const { n, result } = await statements(() =>
        store.transaction(async (tx) => {
          const id = await tx.insertNumbered<Doc, 'n'>('batched', {}, { field: 'n', key, startAt: 7 });
          await tx.collection<Doc>('batched_other').insert({ id: 'b-numbered-other', n: 0 });
          await tx.enqueue(event('b-numbered-1'));
          return id;
        }),
      );
      expect(n).toBe(1);
      // The document, the counter's row, the other document and the event.
      expect(store.stats().rowsWritten - rowsBefore).toBe(4);
      expect(await store.collection<Doc>('batched').get(String(result))).toMatchObject({ n: 7, version: 1 });
      expect(await store.nextSequence(key)).toBe(8);
      expect(await outboxIds('b-numbered-')).toEqual(['b-numbered-1']);
      await store.outbox.markPublished(['b-numbered-1']);
    });

    it('reads see the writes before them; a second write of a row, a delete or a sequence opens the transaction', async () => {
      const { n, result } = await statements(() =>
        store.transaction(async (tx) => {
          const c = tx.collection<Doc>('batched');
          const a = await c.insert({ n: 1 });
          const seen = await c.get(a.id); // sends the insert first: BEGIN, insert, read
          const b = await c.replace(a.id, 1, { n: 2 });
          const again = await c.replace(b.id, 2, { n: 3 }); // the same row again: sends the first replace
          const seq = await tx.nextSequence('batched-seq');
          await tx.enqueue(event('b4-1'));
          return { seen, again, seq };
        }),
      );
      const { seen, again } = result as { seen: Doc; again: Doc };
      expect(seen).toMatchObject({ version: 1, n: 1 });
      expect(await store.collection<Doc>('batched').get(again.id)).toEqual(again);
      expect(again).toMatchObject({ version: 3, n: 3 });
      // BEGIN, insert, get, first replace, sequence, (second replace + events), COMMIT.
      expect(n).toBe(7);
      expect(await outboxIds('b4-')).toEqual(['b4-1']);
      await store.outbox.markPublished(['b4-1']);

      // A throw after writes were sent rolls them back, events included.
      const err = await store
        .transaction(async (tx) => {
          const c = tx.collection<Doc>('batched');
          const d = await c.insert({ id: 'b4-rolled-back', n: 1 });
          await c.delete(d.id); // opens the transaction, sends the insert, deletes
          await c.insert({ id: 'b4-rolled-back', n: 2 });
          await tx.enqueue(event('b4-2'));
          throw new Error('changed my mind');
        })
        .catch((e: unknown) => e);
      expect((err as Error).message).toBe('changed my mind');
      expect(await store.collection<Doc>('batched').get('b4-rolled-back')).toBeNull();
      expect(await outboxIds('b4-')).toEqual([]);
    });

    it('marks of published events ride with the next transaction or the next pending read, else go alone after the delay', async () => {
      const marks = new PostgresStore({ url: PG_URL, database, markDelayMs: 100 });
      try {
        const events = async (ids: string[]) => marks.transaction((tx) => tx.enqueue(ids.map(event)));
        await events(['b5-1', 'b5-2']);
        marks.outbox.markPublishedSoon!(['b5-1', 'b5-2']);
        const before = marks.stats().statements;
        await events(['b5-3']);
        expect(marks.stats().statements - before).toBe(1); // the new event and both marks
        expect(await outboxIds('b5-')).toEqual(['b5-3']);

        // The relay's next read carries them too, and does not answer the events it marks.
        marks.outbox.markPublishedSoon!(['b5-3']);
        const readAt = marks.stats().statements;
        expect((await marks.outbox.pending(100)).map((e) => e.id).filter((id) => id.startsWith('b5-'))).toEqual([]);
        expect(marks.stats().statements - readAt).toBe(1);
        expect(await outboxIds('b5-')).toEqual([]);

        // A transaction that fails gives its marks back; nothing else to ride with: alone, soon.
        await events(['b5-4']);
        marks.outbox.markPublishedSoon!(['b5-4']);
        const failed = await marks
          .transaction(async (tx) => {
            await tx.collection<Doc>('batched').replace('no-such-doc', 1, { n: 1 });
          })
          .catch((err: unknown) => err);
        expect(failed).toMatchObject({ kind: 'not_found' });
        // Without them given back, nothing would ever mark b5-4 (taking them stopped the timer).
        await waitFor(async () => (await outboxIds('b5-')).length === 0, { timeoutMs: 5_000 });
      } finally {
        await marks.close();
      }
    });

    it('a transaction that writes nothing sends nothing but its reads', async () => {
      const { n } = await statements(() =>
        store.transaction(async (tx) => tx.collection<Doc>('batched').find({}, { limit: 1 })),
      );
      expect(n).toBe(1);
    });
  });

  it('counts rows written: each insert, compare-and-set, delete, outbox and sequence row once, reads and misses none', async () => {
    const orders = store.collection<{ id: string; version: number; n: number }>('orders');
    const written = async (op: () => Promise<unknown>) => {
      const before = store.stats().rowsWritten;
      await op().catch(() => undefined);
      return store.stats().rowsWritten - before;
    };
    const doc = await orders.insert({ n: 1 });
    expect(await written(() => orders.insertMany([{ n: 2 }, { n: 3 }]))).toBe(2);
    expect(await written(() => orders.replace(doc.id, doc.version, { n: 4 }))).toBe(1);
    expect(await written(() => orders.replace(doc.id, doc.version, { n: 5 }))).toBe(0); // version conflict
    expect(await written(() => orders.get(doc.id))).toBe(0);
    expect(await written(() => orders.find({}, { limit: 10, total: true }))).toBe(0);
    expect(
      await written(() =>
        orders.addToCounters('c', [
          { id: 'ctr-1', init: { n: 0 }, deltas: { a: 1 } },
          { id: 'ctr-2', init: { n: 0 }, deltas: { a: 1 } },
        ]),
      ),
    ).toBe(2);
    // BEGIN, a sequence row, the outbox rows, COMMIT: three rows.
    expect(
      await written(() =>
        store.transaction(async (tx) => {
          await tx.enqueue([
            { id: 'evt-rows-1', subject: 'test.thing.happened', payload: {}, headers: {} },
            { id: 'evt-rows-2', subject: 'test.thing.happened', payload: {}, headers: {} },
          ]);
          await tx.nextSequence('rows');
        }),
      ),
    ).toBe(3);
    expect(await written(() => store.outbox.markPublished(['evt-rows-1', 'evt-rows-2']))).toBe(2);
    expect(await written(() => orders.deleteMany({ n: { $in: [2, 3] } }))).toBe(2);
    expect(await written(() => orders.delete(doc.id))).toBe(1);
    expect(await written(() => orders.delete(doc.id))).toBe(0);
  });

  it('createStore rejects unknown URL schemes', async () => {
    await expect(createStore({ url: 'redis://localhost', database })).rejects.toThrow(/unsupported store URL scheme/);
  });
});
