import type { OrgKey } from './deps';
import type { RateBook } from './rate-book';

export interface RateBookCacheOptions {
  /**
   * How long a cached book is used without asking the store. Writes made in this process drop the
   * copy at once; writes of other replicas are seen at the latest `ttlMs` later.
   */
  ttlMs: number;
  /** Books kept at most (the least recently loaded go first). Default 10 000. */
  maxEntries?: number;
  /** Milliseconds of a monotonic clock; injectable for tests. */
  now?: () => number;
}

interface Entry {
  book: RateBook;
  revision: number;
  checkedAt: number;
}

/** What the cache needs from the store: the book's current revision, and the whole book. */
export interface RateBookSource {
  revision(): Promise<number>;
  load(): Promise<{ book: RateBook; revision: number }>;
}

const keyOf = (k: OrgKey) => `${k.organizationId}:${k.mode}`;

/**
 * In-process cache of rate books on the calculation path. A copy is used for `ttlMs`; then one
 * cheap read of the book's revision decides whether it is still current (kept for another
 * `ttlMs`) or reloaded. Concurrent misses of one book share one load.
 */
export class RateBookCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<RateBook>>();
  /** Moves with every invalidation: a load that overlapped one is answered but not kept. */
  private writes = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: RateBookCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  get(key: OrgKey, source: RateBookSource): Promise<RateBook> {
    const k = keyOf(key);
    const entry = this.entries.get(k);
    if (entry && this.now() - entry.checkedAt < this.ttlMs) return Promise.resolve(entry.book);
    const pending = this.loading.get(k);
    if (pending) return pending;
    const p = this.refresh(k, entry, source).finally(() => {
      if (this.loading.get(k) === p) this.loading.delete(k);
    });
    this.loading.set(k, p);
    return p;
  }

  /** Drops the copy of a book this process just wrote; later reads load it again. */
  invalidate(key: OrgKey): void {
    this.writes += 1;
    this.entries.delete(keyOf(key));
    // A load already under way may predate the write: later readers must not join it.
    this.loading.delete(keyOf(key));
  }

  private async refresh(k: string, entry: Entry | undefined, source: RateBookSource): Promise<RateBook> {
    const writes = this.writes;
    const startedAt = this.now();
    if (entry && (await source.revision()) === entry.revision) {
      if (this.writes === writes && this.entries.get(k) === entry) entry.checkedAt = startedAt;
      return entry.book;
    }
    const { book, revision } = await source.load();
    if (this.writes === writes) {
      this.entries.delete(k);
      this.entries.set(k, { book, revision, checkedAt: startedAt });
      if (this.entries.size > this.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return book;
  }
}
