import type { Clock } from '@paymesh/core';

/**
 * The price mode (gross or net) each organization's tax calculations last reported, per mode, for
 * an hour. When the tax service is down, a checkout whose items add up to its amount can still be
 * paid if its organization is known to price gross (the charge does not depend on the tax); net or
 * unknown means the charge cannot be computed. Per process, so a fresh process knows nothing.
 */
export class PriceModeMemo {
  private readonly entries = new Map<string, { priceMode: 'gross' | 'net'; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 3_600_000,
    private readonly maxEntries = 50_000,
  ) {}

  remember(organizationId: string, mode: 'live' | 'test', priceMode: 'gross' | 'net'): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(`${organizationId}:${mode}`, { priceMode, until: this.clock.now().getTime() + this.ttlMs });
  }

  known(organizationId: string, mode: 'live' | 'test'): 'gross' | 'net' | undefined {
    const e = this.entries.get(`${organizationId}:${mode}`);
    return e && e.until > this.clock.now().getTime() ? e.priceMode : undefined;
  }
}
