import { ReadCache } from '@paymesh/store';
import type { Bus } from './bus';

/**
 * A per-process cache of another service's answers, invalidated by that service's events: every
 * event published on `filters` drops the whole cache at once (in every replica, as it is
 * published); while the bus is disconnected nothing is served from it or kept. For answers read on
 * every request and changed rarely (a site's signing secret, an organization's providers).
 */
export class EventCache {
  private readonly cache = new ReadCache();
  private stop: (() => void) | undefined;

  constructor(private readonly name: string) {
    this.cache.declare(name);
  }

  /** Starts watching; until then (and when the bus is down) every read loads. */
  async watch(bus: Pick<Bus, 'watch'>, filters: string[]): Promise<void> {
    this.stop = await bus.watch(filters, {
      onEvent: () => this.cache.invalidate(this.name),
      onUp: () => this.cache.setLive(true),
      onDown: () => this.cache.setLive(false),
    });
  }

  read<R>(key: string, load: () => Promise<R>): Promise<R> {
    return this.cache.read(this.name, key, load);
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }
}
