import type { Logger } from '@paymesh/core';
import type { IpnDeps } from '../app/deps';
import { processDelivery, type ProcessResult } from '../app/process-delivery';
import { DELIVERIES, type DeliveryDoc } from '../store/collections';

/** Options of {@link DeliveryScheduler}. */
export interface SchedulerOptions {
  /** Longest sleep between two looks at the store (other replicas may have created work). */
  pollIntervalMs: number;
  /** Deliveries worked on at once by this process. */
  concurrency: number;
  /** Called after each processed delivery (tests, metrics). */
  onProcessed?: (id: string, result: ProcessResult) => void;
}

/**
 * The durable retry loop: repeatedly picks deliveries whose `nextAttemptAt` has come (oldest
 * first) and processes them, up to `concurrency` at once. All state lives in the store, so a
 * restart just carries on; several replicas may run it side by side (claims are compare-and-set).
 */
export class DeliveryScheduler {
  private readonly deps: IpnDeps;
  private readonly opts: SchedulerOptions;
  private readonly log: Logger;
  private readonly running = new Map<string, Promise<void>>();
  private stopped = true;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(deps: IpnDeps, opts: SchedulerOptions) {
    this.deps = deps;
    this.opts = opts;
    this.log = deps.logger.child({ component: 'ipn-scheduler' });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Looks for due work now (e.g. right after a delivery was created). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops picking new work and waits for the attempts in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.loop;
    await Promise.allSettled([...this.running.values()]);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let sleepMs = this.opts.pollIntervalMs;
      try {
        sleepMs = await this.tick();
      } catch (err) {
        this.log.warn({ err }, 'IPN scheduler pass failed; will retry');
      }
      if (this.stopped) break;
      await this.sleep(sleepMs);
    }
  }

  /**
   * One pass, one query: the pending deliveries in `nextAttemptAt` order, enough of them to fill
   * the free slots (skipping those already running) plus one, so the first one not yet due tells
   * how long to sleep. Returns that sleep.
   */
  private async tick(): Promise<number> {
    if (this.running.size >= this.opts.concurrency) return this.opts.pollIntervalMs;
    const collection = this.deps.store.collection<DeliveryDoc>(DELIVERIES);
    const limit = this.opts.concurrency + 1;
    const { items } = await collection.find({ state: 'pending', nextAttemptAt: { $exists: true } }, { sort: { nextAttemptAt: 1 }, limit });
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    for (const d of items) {
      if (d.nextAttemptAt === null || d.nextAttemptAt > nowIso) {
        // The earliest delivery not yet due: sleep until then (the running ones wake us when done).
        const inMs = Date.parse(d.nextAttemptAt ?? '') - now.getTime();
        return Number.isFinite(inMs) ? Math.min(this.opts.pollIntervalMs, Math.max(inMs, 10)) : this.opts.pollIntervalMs;
      }
      if (this.running.size >= this.opts.concurrency) return this.opts.pollIntervalMs;
      if (!this.running.has(d.id)) this.launch(d.id, d);
    }
    // Everything returned was due: more may be waiting behind it once slots free up.
    return items.length === limit ? 10 : this.opts.pollIntervalMs;
  }

  private launch(id: string, known: DeliveryDoc): void {
    const task = processDelivery(this.deps, id, known)
      .then(
        (result) => {
          this.running.delete(id);
          this.wake();
          try {
            this.opts.onProcessed?.(id, result);
          } catch (err) {
            this.log.warn({ err }, 'onProcessed hook failed');
          }
        },
        (err: unknown) => {
          // No immediate wake: a failing store would otherwise be hammered; the poll retries.
          this.running.delete(id);
          this.log.warn({ err, deliveryId: id }, 'IPN delivery pass failed; will retry');
        },
      );
    this.running.set(id, task);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
