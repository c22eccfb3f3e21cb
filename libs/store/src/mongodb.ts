import { MongoClient, MongoServerError, type Db } from 'mongodb';
import type { StoreLogger } from './logger';
import { insertNumberedInSteps } from './documents';
import { assertCollectionName, assertCollectionSpec, assertIdentifier } from './paths';
import { assertTextIndexSpec } from './text';
import type {
  BlobStore,
  Collection,
  CollectionSpec,
  DocumentStore,
  EnqueueOptions,
  NewOutboxEvent,
  Outbox,
  StoredDoc,
  StoreStats,
  TxScope,
} from './port';
import { mongoBlobs } from './mongodb/blobs';
import { MongoCollection } from './mongodb/collection';
import { toMongoKeys, type MongoDoc } from './mongodb/filter';
import * as system from './mongodb/system';
import { withDeadline } from './deadline';
import { RetryableOnce } from './retryable-once';

export interface MongoStoreOptions {
  /** `mongodb://` or `mongodb+srv://` connection URL. */
  url: string;
  /** The service's database name. */
  database: string;
  logger?: StoreLogger;
  /**
   * Count commands for `stats()` (benchmarks). Off by default: it needs the driver's command
   * monitoring, which builds an event per command and decodes every reply once more.
   */
  countCommands?: boolean;
}

const PING_TIMEOUT_MS = 2_000;
const NAMESPACE_EXISTS = 48;
/** dropIndex of an index that is not there. */
const INDEX_NOT_FOUND = 27;

/** Documents a successful write command wrote, from its reply (0 for every other command). */
function documentsWritten(command: string, reply: unknown): number {
  if (typeof reply !== 'object' || reply === null) return 0;
  const field = (obj: object, key: string): unknown => (key in obj ? (obj as Record<string, unknown>)[key] : undefined);
  const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
  switch (command) {
    case 'insert':
    case 'delete':
      return n(field(reply, 'n'));
    case 'update': {
      const upserted = field(reply, 'upserted');
      return n(field(reply, 'nModified')) + (Array.isArray(upserted) ? upserted.length : 0);
    }
    case 'findAndModify': {
      const last = field(reply, 'lastErrorObject');
      return typeof last === 'object' && last !== null ? n(field(last, 'n')) : 0;
    }
    default:
      return 0;
  }
}

/** Every BSON type a JSON-normalized value can have, i.e. all but null. */
const NON_NULL_TYPES = ['string', 'number', 'bool', 'object', 'array'];

/**
 * DocumentStore on MongoDB: one database per service. `transaction()` uses multi-document
 * transactions, which need a replica set or sharded cluster (a single-node replica set will do);
 * on a standalone server it fails. The driver may re-run the transaction callback after
 * transient errors, so it must not have side effects outside the store, and must not swallow
 * store errors or run store calls in parallel.
 */
export class MongoStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  readonly database: string;
  readonly outbox: Outbox;
  /** Binary objects in the GridFS bucket `_blobs` of the service database (see mongodb/blobs.ts). */
  readonly blobs: BlobStore;
  private readonly db: Db;
  /** The store's own collections and indexes: created once, retried after a failure. */
  private readonly initialized = new RetryableOnce(() => system.initSystem(this.db));
  private statements = 0;
  private rowsWritten = 0;

  /** Prefer `MongoStore.connect`; a client passed here must already be connected or connect lazily. */
  constructor(
    private readonly client: MongoClient,
    database: string,
    private readonly logger?: StoreLogger,
  ) {
    assertIdentifier(database, 'database');
    this.database = database;
    this.db = client.db(database);
    // Emitted only when the client was created with `monitorCommands` (`connect` with countCommands).
    client.on('commandStarted', () => {
      this.statements += 1;
    });
    client.on('commandSucceeded', (event) => {
      this.rowsWritten += documentsWritten(event.commandName, event.reply);
    });
    this.outbox = {
      pending: async (limit) => {
        await this.init();
        return system.pending(this.db, limit);
      },
      markPublished: (ids) => system.markPublished(this.db, ids),
      watch: (onWrite) => system.watchOutbox(this.db, onWrite, this.logger),
    };
    this.blobs = mongoBlobs(this.db, () => this.init());
  }

  static async connect(options: MongoStoreOptions): Promise<MongoStore> {
    const client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: 5_000,
      monitorCommands: options.countCommands === true,
    });
    await client.connect();
    return new MongoStore(client, options.database, options.logger);
  }

  init(): Promise<void> {
    return this.initialized.run();
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    assertCollectionSpec(spec);
    if (spec.textIndex) assertTextIndexSpec(spec.textIndex);
    const indexes = spec.indexes ?? [];
    try {
      await this.db.createCollection(spec.name);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err;
    }
    const native = this.db.collection<MongoDoc>(spec.name);
    for (const ix of indexes) {
      if (ix.fields.length === 1 && ix.fields[0] === 'id') continue; // _id is always unique-indexed
      // PostgreSQL unique indexes ignore rows whose key is missing or null; the partial filter
      // gives MongoDB the same rule (without it, two documents lacking the field would clash).
      const partialFilterExpression = ix.unique
        ? Object.fromEntries(Object.keys(toMongoKeys(ix.fields)).map((f) => [f, { $type: NON_NULL_TYPES }]))
        : undefined;
      await native.createIndex(toMongoKeys(ix.fields, ix.descending), {
        name: ix.name,
        unique: ix.unique ?? false,
        ...(partialFilterExpression ? { partialFilterExpression } : {}),
      });
    }
    for (const name of spec.dropIndexes ?? []) {
      try {
        await native.dropIndex(name);
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === INDEX_NOT_FOUND)) throw err;
      }
    }
    if (spec.textIndex) {
      // Language `none`: no stemming and no stop words, like PostgreSQL's `simple` configuration.
      await native.createIndex(Object.fromEntries(spec.textIndex.fields.map((f) => [f, 'text'])), {
        name: spec.textIndex.name,
        default_language: 'none',
        language_override: '_textLanguage',
      });
    }
  }

  collection<T extends StoredDoc>(name: string): Collection<T> {
    assertCollectionName(name);
    return new MongoCollection<T>(name, this.db.collection<MongoDoc>(name));
  }

  async transaction<R>(fn: (tx: TxScope) => Promise<R>): Promise<R> {
    await this.init();
    const session = this.client.startSession();
    try {
      const scope: TxScope = {
        collection: <T extends StoredDoc>(name: string) => {
          assertCollectionName(name);
          return new MongoCollection<T>(name, this.db.collection<MongoDoc>(name), session);
        },
        enqueue: (events: NewOutboxEvent | NewOutboxEvent[], options?: EnqueueOptions) =>
          system.enqueue(this.db, session, Array.isArray(events) ? events : [events], options?.origin),
        nextSequence: (key: string, startAt?: number) => system.nextSequence(this.db, key, startAt, session),
        // Two commands in the session: MongoDB has no insert that takes a counter's value.
        insertNumbered: (name, doc, numbering) => insertNumberedInSteps(scope, name, doc, numbering),
      };
      return await session.withTransaction(() => fn(scope));
    } finally {
      await session.endSession().catch((err: unknown) => this.logger?.warn({ err }, 'mongodb endSession failed'));
    }
  }

  nextSequence(key: string, startAt?: number): Promise<number> {
    return system.nextSequence(this.db, key, startAt);
  }

  /** Commands sent and documents written since start (counted by the driver's command monitoring); for benchmarks. */
  stats(): StoreStats {
    return { statements: this.statements, rowsWritten: this.rowsWritten };
  }

  async ping(): Promise<void> {
    await withDeadline(this.db.command({ ping: 1 }), PING_TIMEOUT_MS, 'mongodb ping');
  }

  /** Drops the service database (tests and teardown only). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
    this.initialized.reset();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
