import { describe, expect, it } from 'vitest';
import { RateBookCache, type RateBookSource } from './rate-book-cache';
import type { RateBook } from './rate-book';

const key = { organizationId: 'a'.repeat(24), mode: 'live' as const };
const bookOf = (percent: number): RateBook => ({
  rates: [
    {
      id: 'b'.repeat(24),
      code: 'VAT_DE_STANDARD',
      country: 'DE',
      rateType: 'standard',
      percent,
      categories: [],
      validFrom: '2021-01-01',
      validTo: null,
    },
  ],
  rules: [],
});

/** A store stand-in: a revision and a book, counting reads. */
function source() {
  const s = { revision: 1, percent: 19, loads: 0, revisionReads: 0 };
  const src: RateBookSource = {
    revision: async () => {
      s.revisionReads += 1;
      return s.revision;
    },
    load: async () => {
      s.loads += 1;
      return { book: bookOf(s.percent), revision: s.revision };
    },
  };
  return { s, src };
}

describe('RateBookCache', () => {
  it('serves a copy within the TTL, then checks the revision and reloads only when it moved', async () => {
    let now = 0;
    const cache = new RateBookCache({ ttlMs: 5000, now: () => now });
    const { s, src } = source();
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(19);
    // Another replica writes: not seen within the TTL.
    s.revision = 2;
    s.percent = 20;
    now = 4999;
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(19);
    expect(s.loads).toBe(1);
    now = 5000;
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(20);
    expect(s.loads).toBe(2);
    // Past the TTL again, revision unchanged: one revision read, no reload.
    now = 10_001;
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(20);
    expect(s).toMatchObject({ loads: 2, revisionReads: 2 });
  });

  it('drops the copy on a write of this process at once', async () => {
    const cache = new RateBookCache({ ttlMs: 60_000, now: () => 0 });
    const { s, src } = source();
    await cache.get(key, src);
    s.percent = 21;
    s.revision = 2;
    cache.invalidate(key);
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(21);
  });

  it('shares one load between concurrent misses, and does not keep a load that a write overtook', async () => {
    const cache = new RateBookCache({ ttlMs: 60_000, now: () => 0 });
    const { s, src } = source();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: RateBookSource = {
      ...src,
      load: async () => {
        const loaded = await src.load();
        await gate;
        return loaded;
      },
    };
    const a = cache.get(key, slow);
    const b = cache.get(key, slow);
    await Promise.resolve();
    s.percent = 22;
    s.revision = 2;
    cache.invalidate(key);
    release();
    expect((await a).rates[0]?.percent).toBe(19);
    expect(await b).toBe(await a);
    expect(s.loads).toBe(1);
    // The overtaken load was not kept: the next read loads the written book.
    expect((await cache.get(key, src)).rates[0]?.percent).toBe(22);
  });

  it('keeps at most maxEntries books', async () => {
    const cache = new RateBookCache({ ttlMs: 60_000, maxEntries: 2, now: () => 0 });
    const { s, src } = source();
    for (const org of ['1', '2', '3']) await cache.get({ organizationId: org.repeat(24), mode: 'live' }, src);
    expect(s.loads).toBe(3);
    await cache.get({ organizationId: '3'.repeat(24), mode: 'live' }, src);
    await cache.get({ organizationId: '2'.repeat(24), mode: 'live' }, src);
    expect(s.loads).toBe(3);
    await cache.get({ organizationId: '1'.repeat(24), mode: 'live' }, src);
    expect(s.loads).toBe(4);
  });
});
