import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { PgListener } from './postgres/listen';
import { ReadCache } from './read-cache';
import { RetryableOnce } from './retryable-once';
import type { StoreLogger } from './logger';
import { withDeadline } from './deadline';
import { assertCollectionName, assertCollectionSpec, assertIdentifier } from './paths';
import { assertTextIndexSpec } from './text';
import type {
  BlobStore,
  Collection,
  CollectionSpec,
  DocumentStore,
  Outbox,
  StoredDoc,
  StoreStats,
  TxScope,
} from './port';
import { PgCollection, type PgOutboxTarget } from './postgres/collection';
import { counted, ident, StatementCounter, type FieldTypes, type Queryable } from './postgres/sql';
import * as system from './postgres/system';
import { postgresBlobs } from './postgres/blobs';
import { inTransaction } from './postgres/tx';
import { BatchedTransaction } from './postgres/batch-tx';
import { mapDataError } from './postgres/errors';

export interface PostgresStoreOptions {
  /** `postgres://` or `postgresql://` connection URL. */
  url: string;
  /** The service's database name; it becomes a PostgreSQL schema in the URL's database. */
  database: string;
  logger?: StoreLogger;
  /** Pool size (default 10). */
  maxConnections?: number;
  /**
   * How long an outbox mark (`outbox.markPublishedSoon`) waits for another statement to carry it
   * before it is sent on its own; default 250 ms, below the 1 s after which other replicas'
   * relays look at the outbox for events nobody published.
   */
  markDelayMs?: number;
}

const PING_TIMEOUT_MS = 2_000;

/**
 * DocumentStore on PostgreSQL: one schema per service, one JSONB table per collection, plus the
 * `_outbox` and `_sequences` tables. Schema and system tables are created on first use.
 */
export class PostgresStore implements DocumentStore {
  readonly kind = 'postgres' as const;
  readonly database: string;
  readonly outbox: Outbox;
  readonly blobs: BlobStore;
  private readonly pool: Pool;
  /** The pool, counting statements. */
  private readonly db: Queryable;
  private readonly counter = new StatementCounter();
  private readonly logger: StoreLogger | undefined;
  /** The schema and the system tables: created once, retried after a failure. */
  private readonly initialized = new RetryableOnce(() => this.ddl(system.systemDdl(this.database)));
  /** Tables known to exist, so each is created at most once per process. */
  private readonly tables = new Map<string, RetryableOnce<void>>();
  /** Field types declared by ensureCollection, by collection (see CollectionSpec.fieldTypes). */
  private readonly fieldTypes = new Map<string, FieldTypes>();
  private closed = false;
  private readonly url: string;
  /** Reads of the collections declared `cached`, invalidated by the schema's change channel. */
  private readonly cache = new ReadCache();
  /** The one LISTEN connection: outbox commits and changes of cached collections. */
  private readonly listener: PgListener;
  /** This process's writes, in change notifications: it has dropped their entries itself already. */
  private readonly origin = randomBytes(8).toString('hex');
  /** Listening to the schema's change channel, which keeps the cached reads current. */
  private readonly changeFeed = new RetryableOnce(() =>
    this.listener.add(system.changeChannel(this.database), {
      onMessage: (payload) => {
        const [table = '', , origin] = payload.split(' ');
        if (origin !== this.origin) this.cache.invalidate(table);
      },
      onUp: () => this.cache.setLive(true),
      onDown: () => this.cache.setLive(false),
    }),
  );
  /** Outbox events published and waiting to be marked by a statement sent anyway (markPublishedSoon). */
  private marks: string[] = [];
  private markTimer: NodeJS.Timeout | undefined;
  private readonly markDelayMs: number;

  constructor(options: PostgresStoreOptions) {
    assertIdentifier(options.database, 'database');
    this.database = options.database;
    this.url = options.url;
    this.logger = options.logger;
    this.markDelayMs = options.markDelayMs ?? 250;
    this.pool = new Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: `paymesh-store:${options.database}`,
    });
    // Names this process in the change notifications of its own writes (see cacheReads); a SET
    // rather than a startup option, which poolers may refuse.
    this.pool.on('connect', (client) => {
      client.query(`SET paymesh.origin = '${this.origin}'`).catch(() => undefined);
    });
    this.listener = new PgListener({
      url: options.url,
      applicationName: `paymesh-listen:${options.database}`,
      logger: options.logger,
    });
    this.db = counted(this.pool, this.counter);
    this.blobs = postgresBlobs(this.db, this.database, () => this.init());
    this.pool.on('error', (err) => this.logger?.warn({ err }, 'postgres idle connection failed; it will be replaced'));
    this.outbox = {
      pending: async (limit) => {
        await this.init();
        // The marks waiting for a ride go with this read, which leaves their events out.
        const marks = this.takeMarks();
        try {
          return await system.pending(this.db, this.database, limit, marks);
        } catch (err) {
          this.returnMarks(marks);
          throw err;
        }
      },
      markPublished: async (ids) => {
        await this.init();
        return system.markPublished(this.db, this.database, ids);
      },
      markPublishedSoon: (ids) => this.markSoon(ids),
      flushMarks: () => this.flushMarks(),
      watch: (onWrite) => this.watchOutbox(onWrite),
    };
  }

  private markSoon(ids: string[]): void {
    if (ids.length === 0) return;
    this.marks.push(...ids);
    this.markTimer ??= setTimeout(() => {
      this.markTimer = undefined;
      this.flushMarks().catch((err: unknown) =>
        // The events stay pending: the relay's next pass publishes them again (deduplicated by id).
        this.logger?.warn({ err, events: ids.length }, 'could not mark published outbox events'),
      );
    }, this.markDelayMs);
    this.markTimer.unref();
  }

  /** The marks waiting for a ride, handed to the statement that carries them. */
  private takeMarks(): string[] {
    const marks = this.marks;
    this.marks = [];
    if (this.markTimer) clearTimeout(this.markTimer);
    this.markTimer = undefined;
    return marks;
  }

  /** Marks whose statement failed wait for the next one. */
  private returnMarks(ids: string[]): void {
    if (ids.length > 0) this.markSoon(ids);
  }

  private async flushMarks(): Promise<void> {
    const marks = this.takeMarks();
    if (marks.length === 0) return;
    await this.init();
    await system.markPublished(this.db, this.database, marks);
  }

  /** Creates the schema and the system tables if missing; memoized, retried after a failure. */
  init(): Promise<void> {
    return this.initialized.run();
  }

  /** DDL serialized per schema across processes: concurrent CREATE ... IF NOT EXISTS can still race. */
  private ddl(statements: string[]): Promise<void> {
    return inTransaction(this.pool, this.logger, this.counter, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`paymesh-store:${this.database}`]);
      for (const statement of statements) await client.query(statement);
    });
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    assertCollectionSpec(spec);
    if (spec.textIndex) assertTextIndexSpec(spec.textIndex);
    const indexes = spec.indexes ?? [];
    const types: FieldTypes = { ...spec.fieldTypes };
    await this.init();
    const { rows } = await this.db.query<{ indexname: string }>(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [this.database, spec.name],
    );
    const present = new Set(rows.map((r) => r.indexname));
    // CREATE INDEX locks the table even when the index exists, so only missing ones are sent.
    const missing = indexes.filter((ix) => !present.has(system.pgIndexName(spec.name, ix.name)));
    const text =
      spec.textIndex && !present.has(system.pgIndexName(spec.name, spec.textIndex.name)) ? [spec.textIndex] : [];
    const dropped = (spec.dropIndexes ?? []).filter((ix) => present.has(system.pgIndexName(spec.name, ix)));
    if (present.size === 0 || missing.length > 0 || text.length > 0 || dropped.length > 0) {
      await this.ddl([
        system.tableDdl(this.database, spec.name),
        ...missing.map((ix) => system.indexDdl(this.database, spec.name, ix, types)),
        ...text.map((ix) => system.textIndexDdl(this.database, spec.name, ix)),
        ...dropped.map((ix) => system.dropIndexDdl(this.database, spec.name, ix)),
      ]);
    }
    this.fieldTypes.set(spec.name, types);
    if (spec.cached) await this.cacheReads(spec.name);
    this.tables.set(spec.name, RetryableOnce.done(undefined));
  }

  /**
   * Announces every write to the table on the schema's change channel (a row trigger, so writes by
   * any process and any statement are seen; PostgreSQL delivers the notification on commit) and
   * serves the collection's reads outside transactions from this process's cache while the
   * channel is listened to.
   */
  private async cacheReads(name: string): Promise<void> {
    const { rows } = await this.db.query(
      `SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2 AND t.tgname = $3`,
      [this.database, name, system.CHANGE_TRIGGER],
    );
    if (rows.length === 0) await this.ddl(system.changeTriggerDdl(this.database, name));
    this.cache.declare(name);
    await this.changeFeed.run();
  }

  private ensureTable(name: string): Promise<void> {
    let table = this.tables.get(name);
    if (!table) {
      table = new RetryableOnce(() => this.ensureCollection({ name }));
      this.tables.set(name, table);
    }
    return table.run();
  }

  private tableName(name: string): string {
    assertCollectionName(name);
    return `${ident(this.database)}.${ident(name)}`;
  }

  private bind<T extends StoredDoc>(
    name: string,
    db: Queryable,
    isolated?: <R>(fn: (db: Queryable) => Promise<R>) => Promise<R>,
    outbox?: PgOutboxTarget,
  ): PgCollection<T> {
    return new PgCollection<T>(
      name,
      this.tableName(name),
      db,
      () => this.ensureTable(name),
      this.counter,
      () => this.fieldTypes.get(name) ?? {},
      isolated,
      outbox,
    );
  }

  collection<T extends StoredDoc>(name: string): Collection<T> {
    const outbox = { table: `${ident(this.database)}."_outbox"`, channel: system.outboxChannel(this.database) };
    const bound = this.bind<T>(
      name,
      this.db,
      (fn) => inTransaction(this.pool, this.logger, this.counter, fn),
      // The outbox exists once the schema is initialized (ensureCollection did that).
      this.initialized.started ? outbox : undefined,
    );
    return this.cache.has(name) ? this.cache.cached(bound) : bound;
  }

  /**
   * Runs `fn` as one transaction in as few statements as the outcome allows (see
   * {@link BatchedTransaction}): writes and events are sent together at the end, usually as one
   * statement and without BEGIN/COMMIT.
   */
  async transaction<R>(fn: (tx: TxScope) => Promise<R>): Promise<R> {
    // Cached collections written in the transaction: dropped again once it committed (or not).
    const written = new Set<string>();
    try {
      await this.init();
      const tx = new BatchedTransaction({
        pool: this.pool,
        logger: this.logger,
        counter: this.counter,
        schema: this.database,
        db: this.db,
        bind: (name, db) => this.bind(name, db),
        table: (name) => this.tableName(name),
        ensureTable: (name) => this.ensureTable(name),
        takeMarks: () => this.takeMarks(),
        returnMarks: (ids) => this.returnMarks(ids),
        onWrite: (name) => {
          if (!this.cache.has(name)) return;
          written.add(name);
          this.cache.invalidate(name);
        },
      });
      let failed = true;
      try {
        const result = await fn(tx);
        await tx.finish();
        failed = false;
        return result;
      } finally {
        await tx.close(failed);
      }
    } catch (err) {
      // Connecting, BEGIN and COMMIT fail outside any collection call: same mapping.
      throw mapDataError('transaction', err);
    } finally {
      for (const name of written) this.cache.invalidate(name);
    }
  }

  async nextSequence(key: string, startAt?: number): Promise<number> {
    await this.init();
    return system.nextSequence(this.db, this.database, key, startAt);
  }

  /** Outbox watchers are told of every commit that enqueued events, in any process. */
  private async watchOutbox(onWrite: (origin: string) => void): Promise<() => Promise<void>> {
    await this.init();
    return this.listener.add(system.outboxChannel(this.database), { onMessage: onWrite });
  }

  /** Statements sent since start (transactions count BEGIN and COMMIT too) and rows written; cheap, for benchmarks. */
  stats(): StoreStats {
    return {
      statements: this.counter.statements,
      rowsWritten: this.counter.rowsWritten,
      byStatement: { ...this.counter.byStatement },
    };
  }

  async ping(): Promise<void> {
    // query_timeout is a per-query pg option missing from @types/pg's QueryConfig.
    const query = { text: 'SELECT 1', query_timeout: PING_TIMEOUT_MS };
    await withDeadline(this.pool.query(query), PING_TIMEOUT_MS, 'postgres ping');
  }

  /** Drops the service schema with every table in it (tests and teardown only). */
  async dropDatabase(): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS ${ident(this.database)} CASCADE`);
    this.tables.clear();
    this.initialized.reset();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flushMarks().catch((err: unknown) =>
      this.logger?.warn({ err }, 'could not mark published outbox events before closing'),
    );
    await this.listener.close();
    await this.pool.end();
  }
}
