import { contextHeaders, currentContext, newObjectId, newRequestId, NotFoundError, type Actor } from '@paymesh/core';
import type {
  AggregateSpec,
  BlobStore,
  Collection,
  CollectionSpec,
  CountedPage,
  DocumentStore,
  EnqueueOptions,
  Filter,
  FindOptions,
  NewDoc,
  NewOutboxEvent,
  Outbox,
  OutboxEvent,
  Page,
  ReplaceArgs,
  StoredDoc,
  StoreStats,
  OutboxWrites,
  TextQuery,
  TxScope,
} from '@paymesh/store';
import { insertNumberedInSteps, isVersionConflict, outboxWritesOf, replaceArgs } from '@paymesh/store';
import { makeEvent } from './envelope';
import { eventId } from './event-id';

/** Subject of the audit events: one per store transaction that wrote audited documents. */
export const AUDIT_SUBJECT = 'audit.entry.recorded';

/** One changed field of an audited document (dotted path; values masked where secret). */
export interface AuditChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** What one transaction did to one audited document. */
export interface AuditRecord {
  organizationId: string | null;
  operation: string;
  action: 'create' | 'update' | 'delete';
  resourceType: string;
  resourceId: string;
  /** False when the document was replaced without being read in the transaction (no `before` values). */
  beforeKnown: boolean;
  changes: AuditChange[];
}

/** Data of an {@link AUDIT_SUBJECT} event: who, when, which request, and the records. */
export interface AuditBatch {
  service: string;
  requestId: string;
  actor: Actor;
  initiator?: Actor;
  occurredAt: string;
  records: AuditRecord[];
}

/** An audited collection: its resource type and where its documents name their organization. */
interface AuditedResource {
  resource: string;
  organizationField: string;
  ignoreFields: ReadonlySet<string>;
}

const MASK = '[masked]';
const ENCRYPTED = '[encrypted]';
/** Field names whose values never enter the audit trail. */
const SECRET_FIELD =
  /(secret|password|passphrase|token|hash|digest|credential|privatekey|private_key|signingkey|apikey|otp)/i;
/** Largest JSON size of a value kept as it is; larger ones are summarized. */
const MAX_VALUE_CHARS = 2_000;
const MAX_CHANGES = 200;
/** Nested objects are compared field by field to this depth; deeper ones as a whole. */
const MAX_DEPTH = 4;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value sealed by SecretBox (`{kid, iv, ct, tag}`). */
function isSealed(v: unknown): boolean {
  return isPlainObject(v) && typeof v.kid === 'string' && typeof v.ct === 'string' && typeof v.iv === 'string';
}

/** Masks secrets and encrypted values anywhere inside `value`. */
export function maskValue(value: unknown, field = ''): unknown {
  if (field && SECRET_FIELD.test(field) && value !== null && value !== undefined) return MASK;
  if (isSealed(value)) return ENCRYPTED;
  if (Array.isArray(value)) return value.map((v) => maskValue(v));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskValue(v, k);
    return out;
  }
  return value;
}

/** `value` as kept in a change (`json` is its JSON): as it is, or summarized when large. */
function bounded(value: unknown, json: string | undefined): unknown {
  if (value === undefined) return undefined;
  if (json === undefined || json.length <= MAX_VALUE_CHARS) return value;
  if (Array.isArray(value)) return `[${value.length} items, ${json.length} characters]`;
  if (typeof value === 'string') return `${value.slice(0, MAX_VALUE_CHARS)}…`;
  return `[object, ${json.length} characters]`;
}

/** `value` under `field` masked at its own level only (what {@link maskValue} makes of its top). */
function maskTop(value: unknown, field: string): unknown {
  if (field && SECRET_FIELD.test(field) && value !== null && value !== undefined) return MASK;
  if (isSealed(value)) return ENCRYPTED;
  return value;
}

/**
 * Field-level differences between two documents, as if both were masked first ({@link maskValue});
 * `version` is left out. Parts that are the same object in both (a next document built from the
 * current one shares what it did not change) are skipped without a look inside, and values are
 * masked and serialized only where they are compared as a whole.
 */
export function diffDocuments(before: unknown, after: unknown): AuditChange[] {
  const out: AuditChange[] = [];
  const walk = (path: string, field: string, rawB: unknown, rawA: unknown, depth: number) => {
    if (out.length >= MAX_CHANGES) return;
    const b = maskTop(rawB, field);
    const a = maskTop(rawA, field);
    if (b === a) return;
    // Objects are compared field by field (a created or deleted document lists its fields).
    const bo = b === undefined ? {} : b;
    const ao = a === undefined ? {} : a;
    if (depth < MAX_DEPTH && isPlainObject(bo) && isPlainObject(ao)) {
      const keys = new Set([...Object.keys(bo), ...Object.keys(ao)]);
      for (const k of keys) {
        if (depth === 0 && (k === 'version' || k === 'id')) continue;
        walk(path ? `${path}.${k}` : k, k, bo[k], ao[k], depth + 1);
      }
      return;
    }
    const mb = b === undefined ? undefined : maskValue(b);
    const ma = a === undefined ? undefined : maskValue(a);
    const jb = JSON.stringify(mb);
    const ja = JSON.stringify(ma);
    if (jb === ja) return;
    const change: AuditChange = { path };
    if (mb !== undefined) change.before = bounded(mb, jb);
    if (ma !== undefined) change.after = bounded(ma, ja);
    out.push(change);
  };
  walk('', '', before, after, 0);
  return out;
}

interface Touched {
  name: string;
  id: string;
  resource: AuditedResource;
  /** The document before the transaction (null: it did not exist; undefined: not read). */
  before: StoredDoc | null | undefined;
  /** The document after (null: deleted). */
  after: StoredDoc | null;
}

/**
 * Audited documents this process read or wrote lately, by collection, id and version: a document
 * read before a transaction and written in it with compare-and-set (the write proves that version
 * current) gives the transaction its `before` without another read.
 */
class RecentDocs {
  private readonly docs = new Map<string, StoredDoc>();
  constructor(private readonly max = 1_000) {}
  put(name: string, doc: StoredDoc | null): void {
    if (!doc) return;
    const key = `${name}\u0000${doc.id}`;
    this.docs.delete(key);
    this.docs.set(key, doc);
    if (this.docs.size > this.max) {
      const oldest = this.docs.keys().next().value;
      if (oldest !== undefined) this.docs.delete(oldest);
    }
  }
  /** The document as last seen; with `version`, only when it was seen at that version. */
  get(name: string, id: string, version?: number): StoredDoc | undefined {
    const doc = this.docs.get(`${name}\u0000${id}`);
    return doc && (version === undefined || doc.version === version) ? doc : undefined;
  }
}

/** Collects the audited writes of one transaction, and the documents it read (for `before`). */
class Recorder {
  private readonly seen = new Map<string, StoredDoc>();
  private readonly touched = new Map<string, Touched>();

  constructor(
    private readonly resources: ReadonlyMap<string, AuditedResource>,
    private readonly recent: RecentDocs,
  ) {}

  read(name: string, doc: StoredDoc | null): void {
    if (!doc) return;
    this.recent.put(name, doc);
    if (!this.touched.has(`${name}\u0000${doc.id}`)) this.seen.set(`${name}\u0000${doc.id}`, doc);
  }

  /** The document as last read (or written) in this transaction, else as read lately at `version`. */
  known(name: string, id: string, version?: number): StoredDoc | undefined {
    return this.seen.get(`${name}\u0000${id}`) ?? this.recent.get(name, id, version);
  }

  wrote(name: string, id: string, before: StoredDoc | null | undefined, after: StoredDoc | null): void {
    const resource = this.resources.get(name);
    if (!resource) return;
    const key = `${name}\u0000${id}`;
    const earlier = this.touched.get(key);
    this.touched.set(key, { name, id, resource, before: earlier ? earlier.before : before, after });
    this.recent.put(name, after);
    if (after) this.seen.set(key, after);
    else this.seen.delete(key);
  }

  records(operation: string | undefined, fallbackOrg: string | undefined): AuditRecord[] {
    const out: AuditRecord[] = [];
    for (const t of this.touched.values()) {
      if (t.before === null && t.after === null) continue;
      const action = t.before === null ? 'create' : t.after === null ? 'delete' : 'update';
      const beforeKnown = t.before !== undefined;
      const ignored = t.resource.ignoreFields;
      const changes = diffDocuments(t.before ?? undefined, t.after ?? undefined).filter(
        (c) => !ignored.has(c.path.split('.')[0] ?? ''),
      );
      if (action === 'update' && beforeKnown && changes.length === 0) continue;
      const doc = (t.after ?? t.before ?? {}) as Record<string, unknown>;
      const field = t.resource.organizationField;
      const org = field === 'id' ? t.id : doc[field];
      out.push({
        organizationId: typeof org === 'string' && org.length > 0 ? org : (fallbackOrg ?? null),
        operation: operation ?? `${t.resource.resource}.${action}`,
        action,
        resourceType: t.resource.resource,
        resourceId: t.id,
        beforeKnown,
        changes,
      });
    }
    return out;
  }
}

/** A collection inside a transaction whose writes are recorded (and whose reads give `before`). */
class RecordingCollection<T extends StoredDoc> implements Collection<T> {
  readonly name: string;
  constructor(
    private readonly inner: Collection<T>,
    private readonly rec: Recorder,
  ) {
    this.name = inner.name;
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const stored = await this.inner.insert(doc);
    this.rec.wrote(this.name, stored.id, null, stored);
    return stored;
  }
  async insertMany(docs: NewDoc<T>[]): Promise<T[]> {
    const stored = await this.inner.insertMany(docs);
    for (const d of stored) this.rec.wrote(this.name, d.id, null, d);
    return stored;
  }
  async get(id: string): Promise<T | null> {
    const doc = await this.inner.get(id);
    this.rec.read(this.name, doc);
    return doc;
  }
  async findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>): Promise<T | null> {
    const doc = await this.inner.findOne(filter, options);
    this.rec.read(this.name, doc);
    return doc;
  }
  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  async find(filter: Filter, options?: FindOptions): Promise<Page<T>> {
    const page = await this.inner.find(filter, options);
    for (const d of page.items) this.rec.read(this.name, d);
    return page;
  }
  count(filter: Filter): Promise<number> {
    return this.inner.count(filter);
  }
  aggregate(filter: Filter, spec: AggregateSpec) {
    return this.inner.aggregate(filter, spec);
  }
  async search(filter: Filter, query: TextQuery, options?: Pick<FindOptions, 'page' | 'limit'>) {
    const page = await this.inner.search(filter, query, options);
    for (const d of page.items) this.rec.read(this.name, d);
    return page;
  }
  async replace(...args: ReplaceArgs<T>): Promise<T> {
    const { id, expectedVersion, next } = replaceArgs(args);
    const known = this.rec.known(this.name, id, expectedVersion);
    const stored = await this.inner.replace(id, expectedVersion, next);
    this.rec.wrote(this.name, id, known?.version === expectedVersion ? known : undefined, stored);
    return stored;
  }
  async update(
    id: string,
    mutate: (current: T) => Omit<T, 'id' | 'version'> | null,
    retries?: number,
    held?: T,
  ): Promise<T> {
    let before: T | undefined;
    let changed = false;
    const stored = await this.inner.update(
      id,
      (current) => {
        before = current;
        const next = mutate(current);
        changed = next !== null;
        return next;
      },
      retries,
      held,
    );
    if (changed) this.rec.wrote(this.name, id, before, stored);
    else this.rec.read(this.name, stored);
    return stored;
  }
  async replaceMany(
    items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>,
  ): Promise<T[]> {
    const known = items.map((i) => this.rec.known(this.name, i.id, i.expectedVersion));
    const stored = await this.inner.replaceMany(items);
    stored.forEach((d, k) => {
      const before = known[k];
      this.rec.wrote(this.name, d.id, before?.version === items[k]?.expectedVersion ? before : undefined, d);
    });
    return stored;
  }
  addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ): Promise<void> {
    return this.inner.addToCounters(field, items);
  }
  async delete(id: string): Promise<boolean> {
    const known = this.rec.known(this.name, id);
    const removed = await this.inner.delete(id);
    if (removed) this.rec.wrote(this.name, id, known ?? ({ id, version: 0 } as StoredDoc), null);
    return removed;
  }
  /** Reads the matching documents first (one more statement), so each deletion is recorded. */
  async deleteMany(filter: Filter): Promise<number> {
    const { items } = await this.inner.find(filter);
    if (items.length === 0) return 0;
    const n = await this.inner.deleteMany({ id: { $in: items.map((d) => d.id) } });
    for (const d of items) this.rec.wrote(this.name, d.id, d, null);
    return n;
  }
}

/**
 * A collection outside transactions: reads as they are; each write of an audited document runs in
 * a transaction of its own, so its audit event is committed with it.
 */
class SelfCommittingCollection<T extends StoredDoc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly plain: Collection<T>,
    private readonly store: AuditingStore,
    private readonly recent: RecentDocs,
  ) {}
  private tx<R>(fn: (c: Collection<T>) => Promise<R>): Promise<R> {
    return this.store.transaction((tx) => fn(tx.collection<T>(this.name)));
  }
  /** The store's single writes with events (one statement, no BEGIN/COMMIT), when it has them. */
  private get writes(): OutboxWrites<T> | undefined {
    return outboxWritesOf(this.plain);
  }
  insert(doc: NewDoc<T>) {
    const w = this.writes;
    if (!w) return this.tx((c) => c.insert(doc));
    const full = { ...doc, id: doc.id ?? newObjectId() } as NewDoc<T> & { id: string };
    return this.store.writeOne(
      this.name,
      null,
      { ...full, version: 1 },
      (events, origin) => w.insertWithEvents(full, events, origin),
      () => this.plain.insert(full),
    );
  }
  insertMany(docs: NewDoc<T>[]) {
    return this.tx((c) => c.insertMany(docs));
  }
  async get(id: string) {
    const doc = await this.plain.get(id);
    this.recent.put(this.name, doc);
    return doc;
  }
  async findOne(filter: Filter, options?: Pick<FindOptions, 'sort'>) {
    const doc = await this.plain.findOne(filter, options);
    this.recent.put(this.name, doc);
    return doc;
  }
  find(filter: Filter, options: FindOptions & { total: true }): Promise<CountedPage<T>>;
  find(filter: Filter, options?: FindOptions): Promise<Page<T>>;
  async find(filter: Filter, options?: FindOptions): Promise<Page<T>> {
    const page = await this.plain.find(filter, options);
    for (const d of page.items) this.recent.put(this.name, d);
    return page;
  }
  count(filter: Filter) {
    return this.plain.count(filter);
  }
  aggregate(filter: Filter, spec: AggregateSpec) {
    return this.plain.aggregate(filter, spec);
  }
  search(filter: Filter, query: TextQuery, options?: Pick<FindOptions, 'page' | 'limit'>) {
    return this.plain.search(filter, query, options);
  }
  replace(...args: ReplaceArgs<T>) {
    const { id, expectedVersion, next } = replaceArgs(args);
    const w = this.writes;
    if (!w) return this.tx((c) => c.replace(id, expectedVersion, next));
    return this.store.writeOne(
      this.name,
      this.recent.get(this.name, id, expectedVersion),
      { ...next, id, version: expectedVersion + 1 },
      (events, origin) => w.replaceWithEvents(id, expectedVersion, next, events, origin),
      () => this.plain.replace(id, expectedVersion, next),
    );
  }
  /** As the store's `update`: read (or the held copy), mutate, compare-and-set; retried on conflicts. */
  async update(
    id: string,
    mutate: (current: T) => Omit<T, 'id' | 'version'> | null,
    retries = 20,
    held?: T,
  ): Promise<T> {
    if (!this.writes) return this.tx((c) => c.update(id, mutate, retries, held));
    for (let attempt = 0; ; attempt++) {
      const tentative = attempt === 0 && held !== undefined && held.id === id ? held : undefined;
      const current = tentative ?? (await this.get(id));
      if (current === null) throw new NotFoundError(`${this.name} ${id} not found`);
      if (tentative) this.recent.put(this.name, tentative);
      const next = mutate(current);
      // Leaving it unchanged is only decided on a fresh read; a held copy may be stale.
      if (next === null && tentative) continue;
      if (next === null) return current;
      try {
        return await this.replace(id, current.version, next);
      } catch (err) {
        if (!isVersionConflict(err) || attempt >= retries) throw err;
      }
    }
  }
  replaceMany(items: ReadonlyArray<{ id: string; expectedVersion: number; next: Omit<T, 'id' | 'version'> }>) {
    return this.tx((c) => c.replaceMany(items));
  }
  addToCounters(
    field: string,
    items: ReadonlyArray<{ id: string; init: Omit<T, 'id' | 'version'>; deltas: Record<string, number> }>,
  ) {
    return this.plain.addToCounters(field, items);
  }
  delete(id: string) {
    const w = this.writes;
    const before = this.recent.get(this.name, id);
    // Without the document at hand, a transaction reads it first (its fields and organization are recorded).
    if (!w || !before)
      return this.tx(async (c) => {
        await c.get(id);
        return c.delete(id);
      });
    return this.store.writeOne(
      this.name,
      before,
      null,
      (events, origin) => w.deleteWithEvents(id, events, origin),
      () => this.plain.delete(id),
      (removed) => removed,
    );
  }
  deleteMany(filter: Filter) {
    return this.tx((c) => c.deleteMany(filter));
  }
}

/** Where committed events are handed to be published at once (the outbox relay). */
export interface AuditHandoff {
  readonly origin: string;
  handoff(events: readonly OutboxEvent[]): void;
}

export interface AuditingStoreOptions {
  /** The service whose store this is (named in every audit event). */
  service: string;
  /** The service's collections; those with `audit` are recorded. */
  collections: readonly CollectionSpec[];
}

/**
 * The document store with an audit trail: every transaction that writes documents of an audited
 * collection (CollectionSpec `audit`) also writes one {@link AUDIT_SUBJECT} event to the outbox, in
 * the same statement as the transaction's other events (so it costs no statement when the
 * transaction emits events anyway, one when it emits none), naming the actor, request ID and
 * operation of the current request context and what changed in each document. Writes of audited
 * documents outside a transaction get a transaction of their own. Unaudited collections are
 * untouched.
 */
export class AuditingStore implements DocumentStore {
  readonly kind: DocumentStore['kind'];
  readonly database: string;
  readonly outbox: Outbox;
  readonly blobs: BlobStore;
  private readonly resources = new Map<string, AuditedResource>();
  private readonly recent = new RecentDocs();
  private relay: AuditHandoff | undefined;
  /** Audit events of committed transactions whose other events the Committer hands off: first event id -> audit events. */
  private readonly riding = new Map<string, OutboxEvent[]>();

  constructor(
    private readonly inner: DocumentStore,
    private readonly opts: AuditingStoreOptions,
  ) {
    this.kind = inner.kind;
    this.database = inner.database;
    this.outbox = inner.outbox;
    this.blobs = inner.blobs;
    for (const c of opts.collections) {
      if (c.audit)
        this.resources.set(c.name, {
          resource: c.audit.resource,
          organizationField: c.audit.organizationField ?? 'organizationId',
          ignoreFields: new Set(c.audit.ignoreFields ?? []),
        });
    }
  }

  /** The relay committed events are handed to; audit events ride with the Committer's handoff of the same commit. */
  attachRelay(relay: AuditHandoff): void {
    this.relay = relay;
  }

  /** Adds the audit events of the commit whose events these are (the relay's handoff hook). */
  withAudit(events: readonly OutboxEvent[]): OutboxEvent[] {
    const first = events[0];
    const audit = first ? this.riding.get(first.id) : undefined;
    if (!audit || !first) return [...events];
    this.riding.delete(first.id);
    return [...events, ...audit];
  }

  ensureCollection(spec: CollectionSpec): Promise<void> {
    return this.inner.ensureCollection(spec);
  }

  collection<T extends StoredDoc>(name: string): Collection<T> {
    const plain = this.inner.collection<T>(name);
    return this.resources.has(name) ? new SelfCommittingCollection<T>(name, plain, this, this.recent) : plain;
  }

  async transaction<R>(fn: (tx: TxScope) => Promise<R>): Promise<R> {
    let handoff: OutboxEvent[] = [];
    let ride: { first: string; events: OutboxEvent[] } | undefined;
    const result = await this.inner.transaction(async (tx) => {
      handoff = [];
      ride = undefined;
      const rec = new Recorder(this.resources, this.recent);
      const buffered: NewOutboxEvent[] = [];
      const origins: string[] = [];
      const scope: TxScope = {
        collection: <T extends StoredDoc>(name: string) => {
          const c = tx.collection<T>(name);
          return this.resources.has(name) ? new RecordingCollection<T>(c, rec) : c;
        },
        // Held back to the end, so the audit event shares their one statement.
        enqueue: async (events: NewOutboxEvent | NewOutboxEvent[], options?: EnqueueOptions) => {
          buffered.push(...(Array.isArray(events) ? events : [events]));
          origins.push(options?.origin ?? '');
        },
        nextSequence: (key, startAt) => tx.nextSequence(key, startAt),
        // A recorded resource's insert goes through its recording collection.
        insertNumbered: (name, doc, numbering) =>
          this.resources.has(name)
            ? insertNumberedInSteps(scope, name, doc, numbering)
            : tx.insertNumbered(name, doc, numbering),
      };
      const out = await fn(scope);
      const audit = this.auditEvent(rec);
      if (buffered.length === 0 && !audit) return out;
      const relayOrigin = this.relay?.origin;
      // The Committer hands its events to the relay itself (its origin keeps watchers quiet): the
      // audit event then rides with them; any other writer wakes the relay, which publishes all.
      const handedOffByCommitter =
        relayOrigin !== undefined && origins.length > 0 && origins.every((o) => o === relayOrigin);
      const origin =
        origins.length === 0
          ? (relayOrigin ?? '')
          : handedOffByCommitter
            ? relayOrigin
            : (origins.find((o) => o !== relayOrigin) ?? '');
      await tx.enqueue(audit ? [...buffered, audit] : buffered, { origin });
      if (audit && relayOrigin !== undefined && origin === relayOrigin) {
        const createdAt = new Date().toISOString();
        handoff = [{ ...audit, createdAt }];
        if (handedOffByCommitter && buffered[0]) {
          ride = { first: buffered[0].id, events: handoff };
          handoff = [];
        }
      }
      return out;
    });
    // Committed: the audit event waits for the committer's handoff of the same commit, or goes now.
    if (ride) this.riding.set(ride.first, ride.events);
    if (handoff.length > 0) this.relay?.handoff(handoff);
    return result;
  }

  /**
   * One write outside a transaction, with its audit event in the same statement (no BEGIN or
   * COMMIT): `write` gets the events and the origin to notify with; `plain` runs when there is
   * nothing to record (bookkeeping fields only). Hands the event to the relay once written.
   */
  async writeOne<R>(
    name: string,
    before: StoredDoc | null | undefined,
    after: StoredDoc | null,
    write: (events: NewOutboxEvent[], origin: string) => Promise<R>,
    plain: () => Promise<R>,
    happened: (result: R) => boolean = () => true,
  ): Promise<R> {
    const id = after?.id ?? before?.id ?? '';
    const rec = new Recorder(this.resources, new RecentDocs(1));
    rec.wrote(name, id, before, after);
    const event = this.auditEvent(rec);
    const result = event ? await write([event], this.relay?.origin ?? '') : await plain();
    if (!happened(result)) return result;
    this.recent.put(name, after);
    if (event && this.relay) this.relay.handoff([{ ...event, createdAt: new Date().toISOString() }]);
    return result;
  }

  private auditEvent(rec: Recorder): NewOutboxEvent | undefined {
    const ctx = currentContext();
    const records = rec.records(ctx?.operation, undefined);
    if (records.length === 0) return undefined;
    const requestId = ctx?.requestId ?? newRequestId();
    const actor: Actor = ctx?.actor ?? { type: 'process', id: this.opts.service };
    const data: AuditBatch = {
      service: this.opts.service,
      requestId,
      actor,
      ...(ctx?.initiator ? { initiator: ctx.initiator } : {}),
      occurredAt: new Date().toISOString(),
      records,
    };
    const envelope = makeEvent(AUDIT_SUBJECT, data, { id: eventId(AUDIT_SUBJECT, newRequestId()) });
    const headers = ctx ? contextHeaders(ctx) : { 'x-request-id': requestId };
    return { id: envelope.id, subject: AUDIT_SUBJECT, payload: envelope, headers };
  }

  nextSequence(key: string, startAt?: number): Promise<number> {
    return this.inner.nextSequence(key, startAt);
  }
  stats(): StoreStats {
    return this.inner.stats();
  }
  ping(): Promise<void> {
    return this.inner.ping();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
