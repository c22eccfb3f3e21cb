import type { Collection, Filter, FindOptions, StoredDoc } from './port';

export interface ReadCacheOptions {
  /**
   * Oldest entry served (default 10 min): only a bound on memory of documents nobody changes, not
   * what keeps entries fresh (the change notifications do).
   */
  maxAgeMs?: number;
  /** Entries kept per collection; the oldest go first (default 2,000). */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  value: unknown;
  at: number;
}

/** The write methods of a collection: each one invalidates the collection's cached reads. */
const WRITES = [
  'insert',
  'insertMany',
  'replace',
  'update',
  'replaceMany',
  'addToCounters',
  'delete',
  'deleteMany',
] as const;

/**
 * Per-process cache of reads of collections declared `cached` (documents read on every request
 * and written rarely: sites, licences, providers, API keys). Correctness comes from invalidation,
 * not from expiry:
 * - every write to a cached collection, by any process, is announced by the store (PostgreSQL: a
 *   row trigger's NOTIFY, delivered on commit) and drops that collection's entries;
 * - a write through this process drops them at once, and again after its transaction commits, so
 *   the replica that made a change serves it to the very next request;
 * - a read that was under way while an invalidation arrived is not kept (a generation count), so a
 *   value older than the latest change is never stored;
 * - while the change feed is down (`setLive(false)`), nothing is served from or kept in the cache.
 * Reads inside a transaction never use it. Values are copied in and out, so callers may mutate
 * what they get.
 */
export class ReadCache {
  private live = false;
  private readonly declared = new Set<string>();
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly generations = new Map<string, number>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: ReadCacheOptions = {}) {
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.maxEntries = options.maxEntries ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  declare(collection: string): void {
    this.declared.add(collection);
  }

  has(collection: string): boolean {
    return this.declared.has(collection);
  }

  /** The change feed is up (from now on every change is announced) or down (nothing is cached). */
  setLive(live: boolean): void {
    this.live = live;
    for (const name of this.declared) this.invalidate(name);
  }

  /** Drops every cached read of `collection`; reads under way are not kept. */
  invalidate(collection: string): void {
    this.generations.set(collection, (this.generations.get(collection) ?? 0) + 1);
    this.entries.get(collection)?.clear();
  }

  async read<R>(collection: string, key: string, load: () => Promise<R>): Promise<R> {
    if (!this.live) return load();
    let map = this.entries.get(collection);
    const hit = map?.get(key);
    if (hit && this.now() - hit.at < this.maxAgeMs) {
      return structuredClone(hit.value) as R;
    }
    const generation = this.generations.get(collection) ?? 0;
    const value = await load();
    if (this.live && (this.generations.get(collection) ?? 0) === generation) {
      if (!map) {
        map = new Map();
        this.entries.set(collection, map);
      }
      map.delete(key);
      if (map.size >= this.maxEntries) {
        const oldest = map.keys().next();
        if (!oldest.done) map.delete(oldest.value);
      }
      map.set(key, { value: structuredClone(value), at: this.now() });
    }
    return value;
  }

  /** The collection with cached `get`, `findOne`, `find` and `count`, and invalidating writes. */
  cached<T extends StoredDoc>(collection: Collection<T>): Collection<T> {
    const name = collection.name;
    const reads: Partial<Collection<T>> = {
      get: (id: string) => this.read(name, `get ${id}`, () => collection.get(id)),
      findOne: (filter: Filter, options?: Pick<FindOptions, 'sort'>) =>
        this.read(name, `findOne ${JSON.stringify([filter, options ?? null])}`, () =>
          collection.findOne(filter, options),
        ),
      find: ((filter: Filter, options?: FindOptions) =>
        this.read(name, `find ${JSON.stringify([filter, options ?? null])}`, () =>
          collection.find(filter, options),
        )) as Collection<T>['find'],
      count: (filter: Filter) => this.read(name, `count ${JSON.stringify(filter)}`, () => collection.count(filter)),
    };
    return this.withWrites(collection, () => this.invalidate(name), reads);
  }

  /**
   * The collection whose writes call `onWrite` when sent and when done (inside a transaction the
   * caller also invalidates after the commit).
   */
  invalidating<T extends StoredDoc>(collection: Collection<T>, onWrite: () => void): Collection<T> {
    return this.withWrites(collection, onWrite, {});
  }

  private withWrites<T extends StoredDoc>(
    collection: Collection<T>,
    onWrite: () => void,
    overrides: Partial<Collection<T>>,
  ): Collection<T> {
    const writes: Record<string, unknown> = {};
    for (const method of WRITES) {
      const original = collection[method] as (...args: unknown[]) => Promise<unknown>;
      writes[method] = async (...args: unknown[]) => {
        onWrite();
        try {
          return await original.apply(collection, args);
        } finally {
          onWrite();
        }
      };
    }
    const wrapped = Object.assign(Object.create(collection) as Collection<T>, writes, overrides);
    // Writes that bypass the methods above (OutboxWrites) would skip the invalidation: not offered.
    Object.defineProperty(wrapped, 'outboxWrites', { value: undefined });
    return wrapped;
  }
}
