/**
 * The document-store port: the narrow surface services need, implemented by a PostgreSQL (JSONB)
 * adapter and a MongoDB adapter. Every document has a 24-hex string `id` and an integer `version`
 * maintained by the store (1 on insert, +1 on each update).
 */

export interface StoredDoc {
  id: string;
  version: number;
}

/** A plain document before the store assigns `version` (and `id`, when absent). */
export type NewDoc<T extends StoredDoc> = Omit<T, 'id' | 'version'> & { id?: string };

export type Scalar = string | number | boolean | null;

/** Operators on one (possibly dotted) field path. */
export interface FieldOps {
  $eq?: Scalar;
  $ne?: Scalar;
  $in?: Scalar[];
  $nin?: Scalar[];
  $gt?: string | number;
  $gte?: string | number;
  $lt?: string | number;
  $lte?: string | number;
  /** true: field present and not null; false: missing or null. */
  $exists?: boolean;
  /** The field is an array one of whose elements equals this string, number or boolean (index it with `array: true`). */
  $has?: string | number | boolean;
}

/**
 * Conjunction of conditions; keys are field paths such as `status` or `billing.country`
 * (`id` is the document id). Paths must match `^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$`, otherwise the
 * store throws ValidationError, as it does for unknown operators or non-scalar operands.
 * Range operators only match values of the operand's type: numbers compare numerically, strings
 * bytewise (so ISO-8601 timestamps order correctly). Matching inside arrays is `$has` only (an
element equal to a scalar); the other operators never look into arrays.
 */
export type Filter = Record<string, Scalar | FieldOps>;

/**
 * Field path -> direction. Values order by type first (missing/null, numbers, strings, objects,
 * arrays, booleans), as in MongoDB; ties are broken by `id` so pages are stable.
 */
export interface SortSpec {
  [field: string]: 1 | -1;
}

export interface FindOptions {
  sort?: SortSpec;
  /** 1-based page; used with `limit`. */
  page?: number;
  /** Without a limit every match is returned (page 1) and `Page.limit` is the item count. */
  limit?: number;
  /**
   * Also count every match for `Page.total` (one more statement when paging); only list routes
   * that show a total ask for it. Without a limit the total is the item count either way.
   */
  total?: boolean;
  /**
   * With `total`: stop counting at this many matches, so a large list costs at most this many
   * index entries or rows to count. `Page.total` is then at most `countUpTo`, and
   * `Page.totalIsLowerBound` is true when the count stopped there (there may be more).
   */
  countUpTo?: number;
}

export interface Page<T> {
  items: T[];
  /** Number of matches; present when asked for with `total: true` or when there is no limit. */
  total?: number;
  /** True when `total` is only a lower bound: counting stopped at `FindOptions.countUpTo`. */
  totalIsLowerBound?: boolean;
  page: number;
  limit: number;
}

/** A page whose `total` was counted (`find(filter, { total: true })`). */
export type CountedPage<T> = Page<T> & { total: number };

export interface IndexSpec {
  /** Field paths, in order. */
  fields: string[];
  /** Unique indexes do not constrain documents in which an indexed field is missing or null. */
  unique?: boolean;
  /**
   * One field holding an array of scalars, indexed for `$has` (PostgreSQL: a GIN index over the
   * array; MongoDB: a multikey index). Not with `unique` or several fields.
   */
  array?: boolean;
  /** Index name, unique within the collection. */
  name: string;
  /**
   * Fields indexed in descending order (MongoDB: -1); the others ascend. A `find` whose filter fixes
   * the leading fields by equality and whose sort is the following fields in these directions (or
   * all of them reversed) walks the index instead of sorting every match, on PostgreSQL when those
   * fields are declared in `CollectionSpec.fieldTypes`. End the fields with `id` (ascending, the
   * store's tie-breaker) so ties need no sort either.
   */
  descending?: string[];
  /**
   * A partial index of the documents where each field named is missing or null (`$exists: false`)
   * or present (`$exists: true`); only `$exists` conditions. PostgreSQL: queries with the same
   * conditions use it, and can count from it alone (index-only) when their other conditions are on
   * its fields. MongoDB: the index covers every document (its partial indexes cannot express
   * "missing"), which is the same for queries.
   */
  where?: Record<string, { $exists: boolean }>;
}

/** A field type declared in `CollectionSpec.fieldTypes`. */
export type FieldType = 'string' | 'number';

/**
 * Full-text index over string fields (at most one per collection). PostgreSQL: a GIN index on a
 * `simple`-configuration tsvector of the fields; MongoDB: a text index with language `none`. On
 * both, text is lower-cased and split into words of letters and digits (no stemming, no stop words).
 */
export interface TextIndexSpec {
  /** Index name, unique within the collection. */
  name: string;
  /** Field paths searched; `Collection.search` must name the same fields in the same order. */
  fields: string[];
}

export interface CollectionSpec {
  /** `^[A-Za-z_][A-Za-z0-9_]{0,62}$`; `_outbox` and `_sequences` are reserved by the store. */
  name: string;
  indexes?: IndexSpec[];
  /**
   * Indexes the collection had and no longer has (replaced by one of another name): dropped where
   * present, so an existing database sheds them on its next start.
   */
  dropIndexes?: string[];
  textIndex?: TextIndexSpec;
  /**
   * Fields whose value is of this JSON type in every document that has one (missing or null
   * otherwise): `string` (ISO-8601 timestamps, ids) or `number`. Filters keep their meaning; sorts
   * give the same order as without the declaration while it holds. On PostgreSQL, sorts on a
   * declared field order by its value alone (strings bytewise, nulls first ascending) instead of
   * by MongoDB's type-aware expressions, and indexes are built over the same expression and
   * order, so `find` with a sort and a limit can walk an index (see `IndexSpec.descending`) and
   * range filters on the field use it. An index is built once, with the declarations of its
   * creation: declare a field before creating an index on it, or give the index a new name (and
   * list the old one in `dropIndexes`). MongoDB ignores the declarations.
   */
  fieldTypes?: Record<string, FieldType>;
  /**
   * Read on (nearly) every request and written rarely: `get`, `findOne`, `find` and `count` outside
   * transactions are served from a per-process cache that every write, by any process, invalidates
   * (PostgreSQL: a row trigger notifies a channel the store listens on; the writing process also
   * drops its entries at once). While the notifications cannot be received, reads go to the
   * server. MongoDB: not cached.
   */
  cached?: boolean;
  /**
   * A business resource of the audit trail: every write of its documents is recorded, with who did
   * it and what changed, in the same transaction (see AuditingStore of @paymesh/bus). The store
   * itself ignores it.
   */
  audit?: {
    /** Resource type as the audit trail names it (`invoice`, `api_key`). */
    resource: string;
    /** Field naming the document's organization; `id` when the document is the organization. Default `organizationId`. */
    organizationField?: string;
    /** Bookkeeping fields (a key's `lastUsedAt`) whose changes alone are not recorded. */
    ignoreFields?: string[];
  };
}

/** A full-text query: matches documents with ANY of the words of `text` in one of `fields`. */
export interface TextQuery {
  /** Split into words as the index splits text (case-insensitive, whole words, at most 16). */
  text: string;
  /** The fields of the collection's text index, as declared. */
  fields: string[];
}

/**
 * A grouped sum over the documents matching a filter (`Collection.aggregate`). With `unwind`, each
 * element of that array field counts as one row; paths `<unwind>.<field>` then name the element's
 * fields (other paths name the document's). Group keys are scalars (missing counts as null);
 * sums add the numbers found at a path (anything else counts as 0).
 */
export interface AggregateSpec {
  /**
   * An array field whose elements are the rows (documents without it contribute none). Its
   * elements must be objects: an element that is not is a ValidationError on PostgreSQL.
   */
  unwind?: string;
  /** Field paths whose values form a group. */
  groupBy: string[];
  /** Numeric field paths summed per group. */
  sum: string[];
}

export interface AggregateRow {
  /** Group key: each `groupBy` path and its value (null when missing). */
  key: Record<string, Scalar>;
  /** Each `sum` path and its total. */
  sums: Record<string, number>;
  /** Rows in the group (documents, or array elements with `unwind`). */
  count: number;
}

/**
 * Arguments of `Collection.replace`: the whole document (its `id` and `version` say which document
 * and which version it must still be at), or the id, the expected version and the fields apart.
 */
export type ReplaceArgs<T extends StoredDoc> =
  readonly [doc: T] | readonly [id: string, expectedVersion: number, next: Omit<T, 'id' | 'version'>];

export interface Collection<T extends StoredDoc> {
  readonly name: string;
  /**
   * Inserts; throws ConflictError (code DUPLICATE_KEY) when a unique index or the id is taken.
   * Documents are stored as JSON (Dates become ISO strings, undefined fields vanish) and must not
   * have a top-level `_id` field.
   */
  insert(doc: NewDoc<T>): Promise<T>;
  /**
   * Inserts several documents in one statement (PostgreSQL) or one ordered command (MongoDB); throws
   * ConflictError (code DUPLICATE_KEY) when any of them takes a unique index or an id. On PostgreSQL
   * nothing is written then; on MongoDB only inside a transaction (outside one, the documents before
   * the duplicate stay), so call it in `transaction` when all or none matters. For bulk writes
   * (imports); at most 1000 documents per call.
   */
  insertMany(docs: NewDoc<T>[]): Promise<T[]>;
  get(id: string): Promise<T | null>;
  findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>): Promise<T | null>;
  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  count(filter: Filter): Promise<number>;
  /**
   * Grouped sums computed by the server (one statement or pipeline), for reports over many
   * documents; groups come in no particular order. Filter on indexed fields (equality and `$in`)
   * so the server reads only the matching documents.
   */
  aggregate(filter: Filter, spec: AggregateSpec): Promise<AggregateRow[]>;
  /**
   * Documents matching `filter` and the text query, most relevant first (the backend's score:
   * more matched words and rarer words rank higher), ties by `id`; always counted. The matches
   * are the same on both backends; scores, hence the order among partial matches, may differ.
   * A query without words matches nothing. Needs the collection's text index (ensureCollection).
   */
  search(filter: Filter, query: TextQuery, options?: Pick<FindOptions, 'page' | 'limit'>): Promise<CountedPage<T>>;
  /**
   * Compare-and-set in one round trip: replaces the document's fields with `next` when its current
   * version equals `expectedVersion`; returns the stored document with version+1. Throws
   * ConflictError (code VERSION_CONFLICT) when the version moved, NotFoundError when the id is
   * unknown. Prefer it over `update` whenever the caller already holds the document.
   * `replace(doc)` takes the whole document as read (changed as needed): its `id` and `version`
   * are the compare-and-set's id and expected version, and the rest is `next`.
   */
  replace(...args: ReplaceArgs<T>): Promise<T>;
  /**
   * Reads, applies `mutate`, and writes with compare-and-set, retrying on version conflicts
   * (up to `retries` times). `mutate` returns the next document or `null` to leave it unchanged.
   * `held`: the document as the caller already has it; the first try applies `mutate` to it
   * without reading (one statement when it is current), later tries read again.
   */
  update(id: string, mutate: (current: T) => Omit<T, 'id' | 'version'> | null, retries?: number, held?: T): Promise<T>;
  /**
   * Compare-and-set of many documents in one statement (PostgreSQL) or one bulk write (MongoDB):
   * like `replace` for each, and all or nothing inside a store transaction (a VERSION_CONFLICT or
   * NotFoundError on any of them throws, and the transaction rolls back). For batch jobs; the ids
   * must differ. Returns the stored documents in the order given.
   */
  replaceMany(
    items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>,
  ): Promise<T[]>;
  /**
   * For each item: adds `deltas` to the numeric entries of the object at top-level field `field` of
   * document `id` (a missing entry counts as 0; an entry that is not a number is replaced by its
   * delta), creating the document from `init` (with `field` holding the deltas) when the id is
   * unknown; the version goes up by one. One statement (PostgreSQL) or one bulk write (MongoDB),
   * with no compare-and-set: concurrent calls add up instead of conflicting (they wait for each
   * other's rows; give the ids in one order everywhere, e.g. sorted, and they never deadlock).
   * Entries are never removed; ids must differ. For counters kept beside the documents they
   * summarize, in the same store transaction.
   */
  addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ): Promise<void>;
  /** Deletes by id; returns whether a document was removed. */
  delete(id: string): Promise<boolean>;
  /** Deletes every document matching the filter; returns how many. */
  deleteMany(filter: Filter): Promise<number>;
}

/** Event waiting in the outbox, written in the same transaction as the state it describes. */
export interface OutboxEvent {
  /** Deterministic event id; used as `Nats-Msg-Id` so republishing is harmless. */
  id: string;
  subject: string;
  /** JSON-serializable envelope published as the message body. */
  payload: unknown;
  /** Headers to publish with (request ID, traceparent). */
  headers: Record<string, string>;
  createdAt: string;
}

export interface Outbox {
  /** Oldest unpublished events first. */
  pending(limit: number): Promise<OutboxEvent[]>;
  /** Marks events as published (removes them from the pending set), in one statement. */
  markPublished(ids: string[]): Promise<void>;
  /**
   * Marks events as published a little later, without a statement of their own when another one
   * can carry them: the next transaction's last statement, the next `pending()` read (which never
   * answers them), or, after the store's mark delay, a statement of their own. Until then they are
   * still pending in the table: a crash in between only republishes them (deduplicated by id).
   */
  markPublishedSoon?(ids: string[]): void;
  /** Sends the marks waiting for a ride now (before stopping). */
  flushMarks?(): Promise<void>;
  /**
   * Calls `onWrite(origin)` soon after a transaction that enqueued events commits, in any process
   * (PostgreSQL LISTEN/NOTIFY, MongoDB change stream); `origin` is what the writer passed to
   * `enqueue` ('' when nothing). Best effort: a lost connection is re-established and the relay's
   * poll covers the gap. Resolves to a function that stops watching.
   */
  watch?(onWrite: (origin: string) => void): Promise<() => Promise<void>>;
}

/**
 * Single writes outside a transaction that append outbox events atomically with them, in one
 * statement (PostgreSQL, collections that are not `cached`): the events are written, and watchers
 * told with `origin`, only if the write happens. For a writer that must record events of writes
 * made outside transactions without a transaction's BEGIN and COMMIT (the audit trail).
 */
export interface OutboxWrites<T extends StoredDoc> {
  insertWithEvents(doc: NewDoc<T> & { id: string }, events: readonly NewOutboxEvent[], origin: string): Promise<T>;
  replaceWithEvents(
    id: string,
    expectedVersion: number,
    next: Omit<T, 'id' | 'version'>,
    events: readonly NewOutboxEvent[],
    origin: string,
  ): Promise<T>;
  deleteWithEvents(id: string, events: readonly NewOutboxEvent[], origin: string): Promise<boolean>;
}

/** The outbox writes of a collection, when its store offers them (see OutboxWrites). */
export function outboxWritesOf<T extends StoredDoc>(c: Collection<T>): OutboxWrites<T> | undefined {
  const w = (c as Collection<T> & { outboxWrites?: OutboxWrites<T> }).outboxWrites;
  return w;
}

/** An event as handed to `TxScope.enqueue`. */
export type NewOutboxEvent = Omit<OutboxEvent, 'createdAt'>;

export interface EnqueueOptions {
  /** Who wrote the events (e.g. a relay instance that publishes them itself); told to watchers. */
  origin?: string;
}

/** Operations available inside a transaction: collections plus the outbox writer. */
export interface TxScope {
  collection<T extends StoredDoc>(name: string): Collection<T>;
  /**
   * Enqueues events (in order; an id already there is kept as it is); they become visible to the
   * relay, and watchers are told, only if the transaction commits.
   */
  enqueue(events: NewOutboxEvent | NewOutboxEvent[], options?: EnqueueOptions): Promise<void>;
  /** Atomic counter within the transaction (see DocumentStore.nextSequence). */
  nextSequence(key: string, startAt?: number): Promise<number>;
  /**
   * Inserts `doc` into `collection` with its top-level field `numbering.field` set to the next
   * value of the counter `numbering.key` (as `nextSequence` gives it). Where the adapter can, the
   * number is taken by the insert's own statement (PostgreSQL: held with the transaction's other
   * writes, so it costs no statement of its own); otherwise it is `nextSequence` then `insert`.
   * Fails like `insert` (DUPLICATE_KEY for a taken id: the counter then moves back with the
   * transaction). Resolves to the document's id; the number is not read back.
   */
  insertNumbered<T extends StoredDoc, F extends keyof T & string>(
    collection: string,
    doc: Omit<NewDoc<T>, F> & { id?: string },
    numbering: Numbering<F>,
  ): Promise<string>;
}

/** Which field of an inserted document takes which counter's next value (see `TxScope.insertNumbered`). */
export interface Numbering<F extends string = string> {
  /** A top-level field name of the document: letters, digits and `_`, not starting with a digit. */
  field: F;
  /** The counter (as for `nextSequence`). */
  key: string;
  /** The first value when the counter is new (default 1). */
  startAt?: number;
}

export interface StoreStats {
  /** Statements or commands sent to the server since the store was opened. */
  statements: number;
  /**
   * Rows (documents) inserted, updated or deleted since the store was opened, outbox and sequence
   * rows included; writes of a transaction that rolled back count too (the server did the work).
   */
  rowsWritten: number;
  /** Statements by shape (PostgreSQL: first keyword and tables named, e.g. `SELECT sessions`), for the cost budget's breakdown. */
  byStatement?: Record<string, number>;
}

export interface DocumentStore {
  readonly kind: 'postgres' | 'mongodb';
  /** Name of this service's database/schema. */
  readonly database: string;
  /** Creates the collection (table) and its indexes if missing; idempotent. */
  ensureCollection(spec: CollectionSpec): Promise<void>;
  /** Works before ensureCollection too: a missing collection is created, without indexes, on first use. */
  collection<T extends StoredDoc>(name: string): Collection<T>;
  /**
   * Runs `fn` atomically: every write and enqueued event commits together or not at all.
   * A store error inside (e.g. DUPLICATE_KEY) aborts the transaction: let it propagate. On MongoDB
   * `fn` may be re-run after transient errors and must not run store calls in parallel.
   */
  transaction<R>(fn: (tx: TxScope) => Promise<R>): Promise<R>;
  /** Atomic counter: returns the next value for `key` (first call returns `startAt`, default 1). */
  nextSequence(key: string, startAt?: number): Promise<number>;
  readonly outbox: Outbox;
  /** Binary objects of the service (PostgreSQL: a `bytea` table; MongoDB: a GridFS bucket). */
  readonly blobs: BlobStore;
  /** Statements (PostgreSQL) or commands (MongoDB, when opened with `countCommands`) sent and rows written so far; for benchmarks and the cost budget. */
  stats(): StoreStats;
  /** Cheap round trip to the server; throws when unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A stored binary object (a rendered PDF): bytes beside the JSON documents, never inside them. */
export interface Blob {
  bytes: Buffer;
  contentType: string;
}

/**
 * Binary objects by key, for files too large or too binary for a JSON document. Keys are chosen by
 * the caller (at most 512 characters); `put` replaces what was stored under the key.
 */
export interface BlobStore {
  put(key: string, blob: Blob): Promise<void>;
  get(key: string): Promise<Blob | null>;
  /** Returns whether a blob was removed. */
  delete(key: string): Promise<boolean>;
}
