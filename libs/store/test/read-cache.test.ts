import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresStore, ReadCache, TEST_PG_URL, dropStoreDatabase, type StoredDoc } from '../src';

interface Site extends StoredDoc {
  organizationId: string;
  secret: string;
}

const PG_URL = TEST_PG_URL;

/** Two processes' stores on one schema: replicas of one service. */
describe('cached collections: reads served per process, every write seen at once here and within 1 s elsewhere', () => {
  const database = `store_cache_${randomBytes(5).toString('hex')}`;
  let a: PostgresStore;
  let b: PostgresStore;

  const open = async () => {
    const store = new PostgresStore({ url: PG_URL, database });
    await store.init();
    await store.ensureCollection({ name: 'sites', cached: true });
    await store.ensureCollection({ name: 'checkouts' });
    return store;
  };

  beforeAll(async () => {
    a = await open();
    b = await open();
  });

  afterAll(async () => {
    await a.close();
    await b.close();
    await dropStoreDatabase({ url: PG_URL, database });
  });

  const newSite = async (secret: string) =>
    a.collection<Site>('sites').insert({ organizationId: `org-${randomBytes(3).toString('hex')}`, secret });

  it('a repeated read sends no statement; a collection not declared cached is always read', async () => {
    const site = await newSite('s1');
    await a.collection<Site>('sites').get(site.id);
    const before = a.stats().statements;
    expect((await a.collection<Site>('sites').get(site.id))?.secret).toBe('s1');
    expect(await a.collection<Site>('sites').findOne({ organizationId: site.organizationId })).toMatchObject({
      id: site.id,
    });
    expect(await a.collection<Site>('sites').findOne({ organizationId: site.organizationId })).toMatchObject({
      id: site.id,
    });
    expect(a.stats().statements - before).toBe(1);

    const checkout = await a.collection<StoredDoc>('checkouts').insert({});
    const mid = a.stats().statements;
    await a.collection('checkouts').get(checkout.id);
    await a.collection('checkouts').get(checkout.id);
    expect(a.stats().statements - mid).toBe(2);
  });

  it('a change made by this process is served to its very next read', async () => {
    const site = await newSite('old');
    const sites = a.collection<Site>('sites');
    await sites.get(site.id);
    await sites.replace(site.id, site.version, { organizationId: site.organizationId, secret: 'rotated' });
    expect((await sites.get(site.id))?.secret).toBe('rotated');

    await a.transaction(async (tx) => {
      await tx.collection<Site>('sites').update(site.id, (cur) => ({ ...cur, secret: 'in-transaction' }));
    });
    expect((await sites.get(site.id))?.secret).toBe('in-transaction');

    await sites.delete(site.id);
    expect(await sites.get(site.id)).toBeNull();
  });

  it('a change made by another process is served within 1 s, and by a raw statement too', async () => {
    const site = await newSite('v1');
    await a.collection<Site>('sites').get(site.id);
    await a.collection<Site>('sites').get(site.id);

    const changedAt = Date.now();
    await b.collection<Site>('sites').update(site.id, (cur) => ({ ...cur, secret: 'v2' }));
    await vi.waitFor(async () => expect((await a.collection<Site>('sites').get(site.id))?.secret).toBe('v2'), {
      timeout: 1_000,
      interval: 10,
    });
    expect(Date.now() - changedAt).toBeLessThan(1_000);

    // A statement no store sent (an operator's fix in psql) is announced by the trigger too.
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(
        `UPDATE "${database}"."sites" SET doc = jsonb_set(doc, '{secret}', '"v3"'), version = version + 1 WHERE id = $1`,
        [site.id],
      );
    } finally {
      await client.end();
    }
    await vi.waitFor(async () => expect((await a.collection<Site>('sites').get(site.id))?.secret).toBe('v3'), {
      timeout: 1_000,
      interval: 10,
    });
  });

  it('callers may change what they read without changing the cache', async () => {
    const site = await newSite('kept');
    const first = await a.collection<Site>('sites').get(site.id);
    if (!first) throw new Error('site not found');
    first.secret = 'mutated by a caller';
    const again = await a.collection<Site>('sites').get(site.id);
    expect(again?.secret).toBe('kept');
    if (!again) throw new Error('site not found');
    again.secret = 'mutated again';
    expect((await a.collection<Site>('sites').get(site.id))?.secret).toBe('kept');
  });

  it('while the change feed is down nothing is served from the cache; afterwards caching resumes', async () => {
    const site = await newSite('before');
    await a.collection<Site>('sites').get(site.id);

    const admin = new Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
        `paymesh-listen:${database}`,
      ]);
    } finally {
      await admin.end();
    }
    // The write lands while `a` may not be listening: it must still be seen.
    await b.collection<Site>('sites').update(site.id, (cur) => ({ ...cur, secret: 'during outage' }));
    await vi.waitFor(
      async () => expect((await a.collection<Site>('sites').get(site.id))?.secret).toBe('during outage'),
      { timeout: 1_000, interval: 10 },
    );
    // Re-opened after a pause: reads are cached again.
    await vi.waitFor(
      async () => {
        await a.collection<Site>('sites').get(site.id);
        const before = a.stats().statements;
        await a.collection<Site>('sites').get(site.id);
        expect(a.stats().statements).toBe(before);
      },
      { timeout: 5_000, interval: 50 },
    );
  });
});

describe('ReadCache', () => {
  it('does not keep a read that was under way when an invalidation arrived', async () => {
    const cache = new ReadCache();
    cache.declare('sites');
    cache.setLive(true);
    let release: (v: string) => void = () => undefined;
    const slow = cache.read('sites', 'k', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidate('sites');
    release('stale');
    expect(await slow).toBe('stale');
    let loads = 0;
    expect(await cache.read('sites', 'k', async () => (++loads, 'fresh'))).toBe('fresh');
    expect(await cache.read('sites', 'k', async () => (++loads, 'fresher'))).toBe('fresh');
    expect(loads).toBe(1);
  });

  it('serves nothing while not live, and entries expire after maxAgeMs', async () => {
    let now = 0;
    const cache = new ReadCache({ maxAgeMs: 100, now: () => now });
    cache.declare('sites');
    let loads = 0;
    const load = async () => ++loads;
    await cache.read('sites', 'k', load);
    await cache.read('sites', 'k', load);
    expect(loads).toBe(2);
    cache.setLive(true);
    await cache.read('sites', 'k', load);
    await cache.read('sites', 'k', load);
    expect(loads).toBe(3);
    now = 100;
    await cache.read('sites', 'k', load);
    expect(loads).toBe(4);
    cache.setLive(false);
    await cache.read('sites', 'k', load);
    expect(loads).toBe(5);
  });

  it('keeps at most maxEntries per collection, dropping the oldest', async () => {
    const cache = new ReadCache({ maxEntries: 2 });
    cache.declare('sites');
    cache.setLive(true);
    let loads = 0;
    const load = async () => ++loads;
    await cache.read('sites', 'a', load);
    await cache.read('sites', 'b', load);
    await cache.read('sites', 'c', load);
    await cache.read('sites', 'c', load);
    await cache.read('sites', 'b', load);
    expect(loads).toBe(3);
    await cache.read('sites', 'a', load);
    expect(loads).toBe(4);
  });
});
