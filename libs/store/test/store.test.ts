import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
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
    // A transaction: BEGIN, the enqueue of two events with its NOTIFY, COMMIT.
    expect(
      await count(() =>
        store.transaction((tx) =>
          tx.enqueue([
            { id: 'evt-count-1', subject: 'test.thing.happened', payload: {}, headers: {} },
            { id: 'evt-count-2', subject: 'test.thing.happened', payload: {}, headers: {} },
          ]),
        ),
      ),
    ).toBe(3);
    expect((await store.outbox.pending(10)).map((e) => e.id)).toEqual(['evt-count-1', 'evt-count-2']);
    await store.outbox.markPublished(['evt-count-1', 'evt-count-2']);
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
    // BEGIN, the outbox rows and a sequence row, COMMIT: three rows.
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
