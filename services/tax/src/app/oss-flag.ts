import type { Clock } from '@paymesh/core';

/**
 * Remembers, per organization, mode and tax-point year, whether the OSS threshold counts as
 * exceeded, for a few seconds: CalculateTax is on the buyer's hot path and the answer changes only
 * when sales cross the threshold. Concurrent misses for one key share one lookup.
 */
export class OssFlagCache {
  private readonly entries = new Map<string, { until: number; value: Promise<boolean> }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<boolean>): Promise<boolean> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.entries.size >= this.maxEntries) this.evictExpired(now);
    const value = load();
    const entry = { until: now + this.ttlMs, value };
    this.entries.set(key, entry);
    // A failed lookup is not remembered: the next calculation asks again.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  private evictExpired(now: number): void {
    for (const [k, e] of this.entries) if (e.until <= now) this.entries.delete(k);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
  }
}

/** How long a threshold flag is reused by default: crossing the threshold shows within this time. */
const OSS_FLAG_TTL_MS = 5_000;
const perService = new WeakMap<object, OssFlagCache>();

/** The one flag cache of a service instance (its deps object), shared by the API and the ledger. */
export function ossFlagCacheOf(deps: { clock: Clock; ossFlagTtlMs?: number }): OssFlagCache {
  let flags = perService.get(deps);
  if (!flags) {
    flags = new OssFlagCache(deps.clock, deps.ossFlagTtlMs ?? OSS_FLAG_TTL_MS);
    perService.set(deps, flags);
  }
  return flags;
}
