import { describe, expect, it } from 'vitest';
import { ManualClock } from '@paymesh/core';
import { OssFlagCache, ossFlagCacheOf } from './oss-flag';

describe('OssFlagCache', () => {
  it('answers from memory within the TTL and asks again after it', async () => {
    const clock = new ManualClock('2026-03-01T00:00:00Z');
    const cache = new OssFlagCache(clock, 5_000);
    let loads = 0;
    const load = async () => ++loads > 1;
    expect(await cache.get('k', load)).toBe(false);
    clock.advance(4_999);
    expect(await cache.get('k', load)).toBe(false);
    expect(loads).toBe(1);
    clock.advance(1);
    expect(await cache.get('k', load)).toBe(true);
    expect(loads).toBe(2);
  });

  it('keeps keys apart and shares one lookup between concurrent misses', async () => {
    const cache = new OssFlagCache(new ManualClock(), 5_000);
    let loads = 0;
    const load = async () => {
      loads++;
      return true;
    };
    await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('b', load)]);
    expect(loads).toBe(2);
  });

  it('does not remember a failed lookup', async () => {
    const cache = new OssFlagCache(new ManualClock(), 5_000);
    await expect(cache.get('k', async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await cache.get('k', async () => true)).toBe(true);
  });

  it('one cache per service instance: the API and the ledger share what the first of them looked up', async () => {
    const deps = { clock: new ManualClock() };
    let loads = 0;
    const load = async () => {
      loads += 1;
      return true;
    };
    await ossFlagCacheOf(deps).get('org:live:2026', load);
    await ossFlagCacheOf(deps).get('org:live:2026', load);
    expect(loads).toBe(1);
    await ossFlagCacheOf({ clock: new ManualClock() }).get('org:live:2026', load);
    expect(loads).toBe(2);
  });
});
