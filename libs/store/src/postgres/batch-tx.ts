import { DatabaseError, type Pool, type PoolClient } from 'pg';
import {
  assertCounterItems,
  assertNumbering,
  assertVersion,
  notFound,
  prepareInsert,
  prepareInsertMany,
  replaceArgs,
  toBody,
  toStored,
  versionConflict,
} from '../documents';
import type {
  AggregateRow,
  AggregateSpec,
  Collection,
  CountedPage,
  EnqueueOptions,
  Filter,
  FindOptions,
  NewDoc,
  NewOutboxEvent,
  Numbering,
  Page,
  ReplaceArgs,
  StoredDoc,
  TextQuery,
  TxScope,
} from '../port';
import type { StoreLogger } from '../logger';
import { addToCountersSql, type PgCollection } from './collection';
import { mapDataError } from './errors';
import { counted, prepared, SqlParams, type Queryable, type StatementCounter } from './sql';
import * as system from './system';

/** What a batched transaction needs from its store. */
export interface BatchStore {
  pool: Pool;
  logger: StoreLogger | undefined;
  counter: StatementCounter;
  schema: string;
  /** The pool, counting statements. */
  db: Queryable;
  /** A collection bound to `db` (no read cache; no isolated statements). */
  bind<T extends StoredDoc>(name: string, db: Queryable): PgCollection<T>;
  /** `"schema"."table"` of a collection. */
  table(name: string): string;
  /** Creates the collection's table on first use (memoized). */
  ensureTable(name: string): Promise<void>;
  /** Outbox marks waiting for a statement to ride with (see `Outbox.markPublishedSoon`). */
  takeMarks(): string[];
  /** Gives back marks whose statement failed. */
  returnMarks(ids: string[]): void;
  /** Called when a write to `name` is about to be sent (the read cache drops its entries). */
  onWrite(name: string): void;
}

/** Most held writes in a statement that is still prepared by name (see `send`). */
const MAX_PREPARED_WRITES = 8;

/** A deferred write: its data-modifying statement (with `RETURNING 1` per row) and how its result is checked. */
interface Pending {
  collection: string;
  /** Rows it touches; a second write of one of them flushes the first (one statement cannot write a row twice). */
  ids: string[];
  sql(p: SqlParams, prelude: string): string;
  /**
   * A data-modifying statement the write reads from, sent as a CTE of its own right before it
   * (data-modifying statements cannot nest); `sql` gets its name (e.g. a counter's next value).
   */
  prelude?(p: SqlParams): string;
  /** Select-list expression of the result (`alias` is the CTE); default: the rows it returned. */
  check?(alias: string, p: SqlParams): string;
  /** Whether the statement text is the same for every call (then it is prepared). */
  fixedShape: boolean;
}

/**
 * A store transaction that sends as few statements as the rules allow, with the same outcome as
 * BEGIN ... COMMIT around every call:
 *
 * - Writes whose result is known without asking (insert, insertMany, replace, addToCounters) and
 *   the outbox events are held and sent together, as one statement of data-modifying CTEs, when
 *   the transaction ends. A compare-and-set that misses fails that statement (the schema's
 *   `_cas_failed` raises), so nothing of it is written; a taken key fails it as before.
 * - Reads run at once. Before anything has been sent they run outside a transaction: at READ
 *   COMMITTED (the store's level) every statement of a transaction reads its own fresh snapshot
 *   anyway and a plain read takes no lock, so this is the same read. A read of a collection with
 *   held writes first sends them (read-your-writes).
 * - Anything else (update, replaceMany, delete, deleteMany, nextSequence: their result or their
 *   lock matters at once) opens the real transaction: BEGIN, the held writes (not for
 *   nextSequence, which touches no collection), the call; the rest runs in it and the last
 *   statement (held writes and events) goes right before COMMIT.
 *
 * A transaction that never opened needs no BEGIN/COMMIT: its one statement is atomic by itself.
 * So the usual "read, decide, write a few documents and their events" costs the reads plus one
 * statement. Errors of held writes surface when `fn` has returned, from `transaction()` itself,
 * exactly as the aborted transaction did before: callers already had to let them propagate.
 */
export class BatchedTransaction implements TxScope {
  private pending: Pending[] = [];
  private events: { list: NewOutboxEvent[]; origin: string }[] = [];
  private conn:
    { client: PoolClient; db: Queryable; broken: Error | undefined; onError: (err: Error) => void } | undefined;
  private opening: Promise<Queryable> | undefined;
  /** Marks sent in the open transaction: given back should it not commit. */
  private readonly carried: string[] = [];

  constructor(private readonly store: BatchStore) {}

  collection<T extends StoredDoc>(name: string): Collection<T> {
    // Validates the name now, as binding a collection does.
    this.store.table(name);
    return new BatchedCollection<T>(this, this.store, name);
  }

  enqueue(events: NewOutboxEvent | NewOutboxEvent[], options?: EnqueueOptions): Promise<void> {
    const list = Array.isArray(events) ? events : [events];
    if (list.length === 0) return Promise.resolve();
    // Bad ids and subjects fail here, as the statement did.
    system.outboxRowsJson(list);
    this.events.push({ list: [...list], origin: options?.origin ?? '' });
    return Promise.resolve();
  }

  async nextSequence(key: string, startAt?: number): Promise<number> {
    // Its row lock must last until the commit; the held writes can wait.
    return system.nextSequence(await this.begun(), this.store.schema, key, startAt);
  }

  /** Held like `insert`: the counter's upsert rides in the same statement, as the insert's prelude. */
  async insertNumbered<T extends StoredDoc, F extends keyof T & string>(
    name: string,
    doc: Omit<NewDoc<T>, F> & { id?: string },
    numbering: Numbering<F>,
  ): Promise<string> {
    const { field, key, startAt } = assertNumbering(numbering);
    const { id, body } = prepareInsert(doc);
    const table = this.store.table(name);
    await this.hold({
      collection: name,
      ids: [id],
      fixedShape: true,
      prelude: (p) => system.nextSequenceSql(this.store.schema, p.add(key), p.add(startAt)),
      sql: (p, seq) =>
        `INSERT INTO ${table} (id, version, doc)
         SELECT ${p.add(id)}, 1, ${p.add(JSON.stringify(body))}::jsonb || jsonb_build_object(${p.add(field)}::text, ${seq}.value)
         FROM ${seq} RETURNING 1`,
      // The counter's row is written too.
      check: (alias) => `(SELECT count(*) FROM ${alias}) + (SELECT count(*) FROM ${alias}p)`,
    });
    return id;
  }

  /** Holds a write; writes of a row already held are sent first. */
  async hold(write: Pending): Promise<void> {
    await this.store.ensureTable(write.collection);
    if (this.pending.some((p) => p.collection === write.collection && p.ids.some((id) => write.ids.includes(id)))) {
      await this.open();
    }
    this.store.onWrite(write.collection);
    this.pending.push(write);
  }

  /** Where a read of `name` runs: outside a transaction until one is open or `name` has held writes. */
  async reader(name: string): Promise<Queryable> {
    if (this.conn || this.opening || this.pending.some((p) => p.collection === name)) return this.open();
    return this.store.db;
  }

  /** The open transaction (BEGIN on first use), with every held write sent. */
  async open(): Promise<Queryable> {
    const db = await this.begun();
    await this.send(db, false);
    return db;
  }

  /** The open transaction (BEGIN on first use). */
  private begun(): Promise<Queryable> {
    return (this.opening ??= this.begin());
  }

  private async begin(): Promise<Queryable> {
    const client = await this.store.pool.connect();
    const conn = {
      client,
      db: counted(client, this.store.counter),
      broken: undefined as Error | undefined,
      onError: (err: Error) => {
        conn.broken = err;
        this.store.logger?.warn({ err }, 'postgres connection lost during a transaction');
      },
    };
    // pg-pool only listens for errors on idle clients; an unhandled one on a checked-out client would crash the process.
    client.on('error', conn.onError);
    this.conn = conn;
    await conn.db.query('BEGIN');
    return conn.db;
  }

  /** Sends the held writes (and, at the end, the events) as one statement. */
  private async send(db: Queryable, withEvents: boolean): Promise<void> {
    const writes = this.pending;
    const events = withEvents ? this.events : [];
    if (writes.length === 0 && events.length === 0) return;
    this.pending = [];
    if (withEvents) this.events = [];
    const p = new SqlParams();
    const ctes: string[] = [];
    const columns: string[] = [];
    writes.forEach((w, i) => {
      if (w.prelude) ctes.push(`w${i}p AS (${w.prelude(p)})`);
      ctes.push(`w${i} AS (${w.sql(p, `w${i}p`)})`);
      columns.push(`${w.check ? w.check(`w${i}`, p) : `(SELECT count(*) FROM w${i})`} AS n${i}`);
    });
    // All events in one insert: their `seq` follows the order they were enqueued in (the CTEs of
    // one statement run in no set order).
    const all = events.flatMap((e) => e.list);
    if (all.length > 0) {
      ctes.push(`e AS (${system.outboxInsertSql(this.store.schema, p.add(system.outboxRowsJson(all)))})`);
    }
    // The outbox watchers' notification, once per origin (PostgreSQL delivers it at commit).
    for (const origin of new Set(events.map((e) => e.origin))) {
      columns.push(`pg_notify(${p.add(system.outboxChannel(this.store.schema))}, ${p.add(origin)})`);
    }
    // The last statement also carries the marks of events this process published meanwhile.
    const marks = withEvents ? this.store.takeMarks() : [];
    if (marks.length > 0) {
      ctes.push(`m AS (${system.markSql(this.store.schema, p.add(marks))} RETURNING 1)`);
      columns.push('(SELECT count(*) FROM m) AS marked');
    }
    const text = `WITH ${ctes.join(',\n')}\nSELECT ${columns.join(', ')}`;
    // Named (prepared once per connection) when the shape recurs: fixed-shape writes, and not so
    // many of them that every count of a loop's writes would leave a statement on each connection.
    const fixed = writes.length <= MAX_PREPARED_WRITES && writes.every((w) => w.fixedShape);
    let row: Record<string, unknown> | undefined;
    try {
      ({
        rows: [row],
      } = await db.query<Record<string, unknown>>(fixed ? prepared(text, p.values) : { text, values: p.values }));
    } catch (err) {
      this.store.returnMarks(marks);
      throw batchError(err);
    }
    if (this.opening) this.carried.push(...marks);
    this.store.counter.rowsWritten += Number(row?.marked ?? 0);
    for (let i = 0; i < writes.length; i++) this.store.counter.rowsWritten += Number(row?.[`n${i}`] ?? 0);
    // As `enqueue` counted them: an id already there counts too.
    for (const e of events) this.store.counter.rowsWritten += e.list.length;
  }

  /** Sends what is held and commits (a transaction never opened needs neither BEGIN nor COMMIT). */
  async finish(): Promise<void> {
    if (!this.opening) {
      await this.send(this.store.db, true);
      return;
    }
    const db = await this.opening;
    await this.send(db, true);
    await db.query('COMMIT');
  }

  /** Rolls back an open transaction and gives its connection back (destroyed when it failed). */
  async close(failed: boolean): Promise<void> {
    if (!this.opening) return;
    try {
      await this.opening;
    } catch {
      // BEGIN failed: the connection, if any, is released below.
    }
    const conn = this.conn;
    if (!conn) return;
    if (failed) {
      this.store.returnMarks(this.carried.splice(0));
      try {
        await conn.db.query('ROLLBACK');
      } catch (rollbackErr) {
        conn.broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
    }
    conn.client.off('error', conn.onError);
    conn.client.release(conn.broken);
  }
}

/** A failed batched statement: a missed compare-and-set becomes NotFound / VERSION_CONFLICT, data errors as usual. */
function batchError(err: unknown): unknown {
  if (err instanceof DatabaseError && err.code === system.CAS_FAILED_CODE) {
    const detail = JSON.parse(err.detail ?? '{}') as {
      table?: string;
      id?: string;
      expected?: number;
      actual?: number | null;
    };
    const table = detail.table ?? '?';
    if (detail.actual == null) return notFound(table, detail.id ?? '?');
    return versionConflict(table, detail.id ?? '?', detail.expected ?? 0, detail.actual);
  }
  // The collection of a taken key is the table the server names.
  return mapDataError(err instanceof DatabaseError && err.table ? err.table : 'transaction', err);
}

/** A collection inside a {@link BatchedTransaction}. */
class BatchedCollection<T extends StoredDoc> implements Collection<T> {
  constructor(
    private readonly tx: BatchedTransaction,
    private readonly store: BatchStore,
    readonly name: string,
  ) {}

  private async read(): Promise<PgCollection<T>> {
    return this.store.bind<T>(this.name, await this.tx.reader(this.name));
  }

  private async inTransaction(): Promise<PgCollection<T>> {
    const db = await this.tx.open();
    this.store.onWrite(this.name);
    return this.store.bind<T>(this.name, db);
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const { id, body } = prepareInsert(doc);
    const table = this.store.table(this.name);
    await this.tx.hold({
      collection: this.name,
      ids: [id],
      fixedShape: true,
      sql: (p) =>
        `INSERT INTO ${table} (id, version, doc) VALUES (${p.add(id)}, 1, ${p.add(JSON.stringify(body))}::jsonb) RETURNING 1`,
    });
    return toStored<T>(id, 1, body);
  }

  async insertMany(docs: NewDoc<T>[]): Promise<T[]> {
    if (docs.length === 0) return [];
    const rows = prepareInsertMany(docs);
    const table = this.store.table(this.name);
    await this.tx.hold({
      collection: this.name,
      ids: rows.map((r) => r.id),
      fixedShape: false,
      sql: (p) =>
        `INSERT INTO ${table} (id, version, doc) VALUES ${rows
          .map((r) => `(${p.add(r.id)}, 1, ${p.add(JSON.stringify(r.body))}::jsonb)`)
          .join(', ')} RETURNING 1`,
    });
    return rows.map((r) => toStored<T>(r.id, 1, r.body));
  }

  async replace(...args: ReplaceArgs<T>): Promise<T> {
    const { id, expectedVersion, next } = replaceArgs(args);
    assertVersion(expectedVersion);
    const body = toBody(next);
    const table = this.store.table(this.name);
    const schema = this.store.schema;
    let idParam = '';
    let versionParam = '';
    await this.tx.hold({
      collection: this.name,
      ids: [id],
      fixedShape: true,
      sql: (p) => {
        idParam = p.add(id);
        versionParam = p.add(expectedVersion);
        return `UPDATE ${table} SET doc = ${p.add(JSON.stringify(body))}::jsonb, version = version + 1
                WHERE id = ${idParam} AND version = ${versionParam} RETURNING 1`;
      },
      // The statement's snapshot is from before its updates: the version read here is the one that
      // did not match (NULL: no such document).
      check: (alias, p) =>
        `CASE WHEN (SELECT count(*) FROM ${alias}) = 1 THEN 1 ELSE ${system.casFailedFn(schema)}(${p.add(
          this.name,
        )}, ${idParam}, ${versionParam}, (SELECT version FROM ${table} WHERE id = ${idParam})) END`,
    });
    return toStored<T>(id, expectedVersion + 1, body);
  }

  async addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ): Promise<void> {
    if (items.length === 0) return;
    assertCounterItems(field, items);
    const docs = items.map((i) => JSON.stringify(toBody({ ...i.init, [field]: i.deltas })));
    const table = this.store.table(this.name);
    await this.tx.hold({
      collection: this.name,
      ids: items.map((i) => i.id),
      fixedShape: true,
      sql: (p) => `${addToCountersSql(table, p.add(items.map((i) => i.id)), p.add(docs), p.add(field))} RETURNING 1`,
    });
  }

  async get(id: string): Promise<T | null> {
    return (await this.read()).get(id);
  }

  async findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>): Promise<T | null> {
    return (await this.read()).findOne(filter, options);
  }

  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  async find(filter: Filter, options?: FindOptions): Promise<Page<T>> {
    return (await this.read()).find(filter, options);
  }

  async count(filter: Filter): Promise<number> {
    return (await this.read()).count(filter);
  }

  async aggregate(filter: Filter, spec: AggregateSpec): Promise<AggregateRow[]> {
    return (await this.read()).aggregate(filter, spec);
  }

  async search(
    filter: Filter,
    query: TextQuery,
    options?: Pick<FindOptions, 'page' | 'limit'>,
  ): Promise<CountedPage<T>> {
    return (await this.read()).search(filter, query, options);
  }

  async update(
    id: string,
    mutate: (current: T) => Omit<T, 'id' | 'version'> | null,
    retries?: number,
    held?: T,
  ): Promise<T> {
    // Its retry loop needs each compare-and-set's answer at once.
    return (await this.inTransaction()).update(id, mutate, retries, held);
  }

  async replaceMany(
    items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>,
  ): Promise<T[]> {
    return (await this.inTransaction()).replaceMany(items);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.inTransaction()).delete(id);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.inTransaction()).deleteMany(filter);
  }
}
