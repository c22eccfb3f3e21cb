import { randomUUID } from 'node:crypto';
import { contextFromHeaders, runWithContext, type Logger } from '@paymesh/core';
import type { PublishResult } from './bus';
import type { Outbox, OutboxEvent } from './outbox-types';

/** What the relay needs from the bus ({@link Bus} satisfies it). */
export interface OutboxPublisher {
  publishOutboxEvent(event: Pick<OutboxEvent, 'id' | 'subject' | 'payload' | 'headers'>): Promise<PublishResult>;
}

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  outbox: Outbox;
  bus: OutboxPublisher;
  logger: Logger;
  /**
   * Pause between safety-net polls; default 5 000 ms (longer, up to 30 s, after repeated
   * failures). Commits hand their events over at once ({@link OutboxRelay.handoff}) and other
   * writers' commits wake the relay (outbox watch), so polling only covers crashes and outages.
   */
  intervalMs?: number;
  /** Events read per `pending()` call, and most published in one pipelined handoff; default 100. */
  batchSize?: number;
  /** Delay before a pass after another process committed events (it normally publishes them itself); default 1 000 ms. */
  wakeDelayMs?: number;
  /**
   * When to start watching the outbox for other processes' commits (a connection of its own on
   * PostgreSQL): `first-event` (default) once this relay has events to publish, so services that
   * never write events hold no extra connection; `start` at once.
   */
  watchFrom?: 'first-event' | 'start';
}

/** Relay state, for `/internal/health`. */
export interface RelayHealth {
  /** Whether the polling loop is started. */
  running: boolean;
  /** False while the last pass failed. */
  healthy: boolean;
  /** Events published since construction (and marked, or handed to `markPublishedSoon`). */
  published: number;
  /** Publishing handed-over events or running a pass right now. */
  busy: boolean;
  /** Whether other processes' commits wake this relay (outbox watch active). */
  watching: boolean;
  /** Failed passes in a row. */
  consecutiveFailures: number;
  lastRunAt: string | undefined;
  lastSuccessAt: string | undefined;
  lastError: string | undefined;
  lastErrorAt: string | undefined;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * Publishes the transactional outbox to the bus: events committed by this process at once
 * ({@link OutboxRelay.handoff}), everything else (other writers, crashes, failed publishes) by
 * polling passes, woken early by the outbox watch.
 *
 * Each pass reads the oldest pending events, publishes them in order (id as `Nats-Msg-Id`, the
 * stored headers), then marks the published ones. A publish failure ends the pass and leaves that
 * event and the ones after it pending for the next pass; a crash or failure between publish and
 * mark only republishes the same ids, which JetStream drops inside its duplicate window (and
 * idempotent consumers tolerate beyond it). Passes never overlap.
 */
export class OutboxRelay {
  private readonly outbox: Outbox;
  private readonly bus: OutboxPublisher;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by start/stop so a timer chain from before a restart dies out. */
  private generation = 0;
  private current: Promise<number> | undefined;
  private queued: Promise<number> | undefined;
  private published = 0;
  private consecutiveFailures = 0;
  private lastRunAt: Date | undefined;
  private lastSuccessAt: Date | undefined;
  private lastErrorAt: Date | undefined;
  private error: Error | undefined;
  /** Told to outbox watchers with this relay's own commits, so it does not wake itself. */
  readonly origin = randomUUID();
  /**
   * Events committed with a handed-off batch that the committer did not list (the audit event of
   * the same transaction, see AuditingStore.withAudit): added to the batch.
   */
  companions: ((events: readonly OutboxEvent[]) => readonly OutboxEvent[]) | undefined;
  private readonly wakeDelayMs: number;
  private wakeTimer: NodeJS.Timeout | undefined;
  private unwatch: Promise<(() => Promise<void>) | undefined> | undefined;
  private readonly watchFrom: 'first-event' | 'start';
  private watching = false;
  /** Events handed over by commits, waiting for the pipelined publish. */
  private readonly handedOver: OutboxEvent[] = [];
  private draining: Promise<void> | undefined;

  constructor(opts: OutboxRelayOptions) {
    this.outbox = opts.outbox;
    this.bus = opts.bus;
    this.log = opts.logger.child({ component: 'outbox-relay' });
    this.intervalMs = opts.intervalMs ?? 5_000;
    this.wakeDelayMs = opts.wakeDelayMs ?? 1_000;
    this.watchFrom = opts.watchFrom ?? 'first-event';
    this.batchSize = opts.batchSize ?? 100;
    if (!(this.intervalMs > 0)) throw new RangeError('intervalMs must be positive');
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError('batchSize must be a positive integer');
  }

  /** The error of the last failed pass, cleared by a successful one. */
  get lastError(): Error | undefined {
    return this.error;
  }

  /** Starts polling (first pass at once); idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.generation += 1;
    this.schedule(0, this.generation);
    if (this.watchFrom === 'start') this.startWatching();
  }

  private startWatching(): void {
    if (!this.started || this.unwatch) return;
    this.unwatch = this.watch();
  }

  /** Wakes this relay when another process commits events; without a watch the poll covers it. */
  private async watch(): Promise<(() => Promise<void>) | undefined> {
    if (!this.outbox.watch) return undefined;
    try {
      const stop = await this.outbox.watch((origin) => {
        if (origin !== this.origin) this.wakeSoon();
      });
      this.watching = true;
      return stop;
    } catch (err) {
      this.log.warn({ err }, 'cannot watch the outbox; relying on polling');
      return undefined;
    }
  }

  /** One pass a little later, coalescing the wake-ups in between. */
  private wakeSoon(): void {
    if (!this.started || this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      void this.runOnce();
    }, this.wakeDelayMs);
    this.wakeTimer.unref();
  }

  /** Stops polling and waits for a pass in progress; idempotent. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopped = true;
    this.generation += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    const unwatch = await this.unwatch;
    this.unwatch = undefined;
    this.watching = false;
    await unwatch?.();
    await Promise.all([this.current, this.queued, this.draining]);
    await this.outbox
      .flushMarks?.()
      .catch((err: unknown) =>
        this.log.warn({ err }, 'could not mark published outbox events; the next start publishes them again'),
      );
  }

  /**
   * Publishes events just committed by this process at once, without reading them back: all of
   * them are sent before any ack is awaited (pipelined, in order on one connection), then the
   * published ones are marked in one statement. At the first failed publish that event and every
   * later one stay pending for the safety-net poll, so an event never overtakes an earlier one
   * that failed. Ignored while the relay is not started (the poll, or the next start, publishes).
   * When the outbox can mark later (`markPublishedSoon`), the marks ride with a statement the
   * process sends anyway instead of one of their own.
   */
  handoff(events: readonly OutboxEvent[]): void {
    if (this.companions) events = this.companions(events);
    if (!this.started || events.length === 0) return;
    this.startWatching();
    this.handedOver.push(...events);
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.handedOver.length > 0 && !this.stopped) {
      const batch = this.handedOver.splice(0, this.batchSize);
      const results = await Promise.allSettled(
        batch.map((event) =>
          runWithContext(
            contextFromHeaders((name) => event.headers[name]),
            () => this.bus.publishOutboxEvent(event),
          ),
        ),
      );
      const failedAt = results.findIndex((r) => r.status === 'rejected');
      const done = (failedAt === -1 ? batch : batch.slice(0, failedAt)).map((e) => e.id);
      if (failedAt !== -1) {
        const failed = batch[failedAt];
        const reason = results[failedAt];
        // Later handed-over events wait too: the poll publishes them after the failed one.
        this.handedOver.length = 0;
        this.log.warn(
          {
            err: reason?.status === 'rejected' ? reason.reason : undefined,
            eventId: failed?.id,
            subject: failed?.subject,
          },
          'outbox event publish failed; left for the next relay pass',
        );
      }
      if (done.length === 0) continue;
      if (this.outbox.markPublishedSoon) {
        // Marked by the next statement this process sends anyway (or soon by one of their own).
        this.outbox.markPublishedSoon(done);
        this.published += done.length;
        continue;
      }
      try {
        await this.outbox.markPublished(done);
        this.published += done.length;
      } catch (err) {
        // Published but not marked: the poll republishes them, and JetStream drops the duplicates.
        this.log.warn({ err, events: done.length }, 'could not mark published outbox events');
      }
    }
  }

  /**
   * Runs one pass, after the pass in progress if there is one (concurrent calls share a single
   * follow-up pass). Resolves to the number of events published; never rejects (see `lastError`).
   * Works without `start()` (one-shot draining); after `stop()` it publishes nothing.
   */
  runOnce(): Promise<number> {
    if (this.current) {
      this.queued ??= this.current.then(() => {
        this.queued = undefined;
        return this.runOnce();
      });
      return this.queued;
    }
    const pass = this.pass().finally(() => {
      if (this.current === pass) this.current = undefined;
    });
    this.current = pass;
    return pass;
  }

  /** Relay state, for health endpoints. */
  health(): RelayHealth {
    return {
      running: this.started,
      healthy: this.consecutiveFailures === 0,
      published: this.published,
      busy:
        this.handedOver.length > 0 ||
        this.draining !== undefined ||
        this.current !== undefined ||
        this.queued !== undefined,
      watching: this.watching,
      consecutiveFailures: this.consecutiveFailures,
      lastRunAt: this.lastRunAt?.toISOString(),
      lastSuccessAt: this.lastSuccessAt?.toISOString(),
      lastError: this.error?.message,
      lastErrorAt: this.lastErrorAt?.toISOString(),
    };
  }

  private schedule(delayMs: number, generation: number): void {
    if (!this.started || generation !== this.generation) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runOnce().then(() => this.schedule(this.nextDelay(), generation));
    }, delayMs);
    this.timer.unref();
  }

  private nextDelay(): number {
    if (this.consecutiveFailures === 0) return this.intervalMs;
    return Math.min(MAX_BACKOFF_MS, this.intervalMs * 2 ** Math.min(this.consecutiveFailures, 10));
  }

  private async pass(): Promise<number> {
    if (this.stopped) return 0;
    this.lastRunAt = new Date();
    let total = 0;
    try {
      for (;;) {
        const batch = await this.outbox.pending(this.batchSize);
        if (batch.length === 0) break;
        this.startWatching();
        const { done, failure } = await this.publishBatch(batch);
        if (done.length > 0) {
          await this.outbox.markPublished(done);
          total += done.length;
          this.published += done.length;
        }
        if (failure) throw failure;
        if (batch.length < this.batchSize || this.stopped) break;
      }
      this.consecutiveFailures = 0;
      this.error = undefined;
      this.lastSuccessAt = new Date();
      if (total > 0) this.log.debug({ published: total }, 'outbox events published');
    } catch (err) {
      this.consecutiveFailures += 1;
      this.error = err instanceof Error ? err : new Error(String(err));
      this.lastErrorAt = new Date();
      this.log.warn(
        { err, consecutiveFailures: this.consecutiveFailures },
        'outbox relay pass failed; pending events stay queued',
      );
    }
    return total;
  }

  /** Publishes in order, stopping at the first failure so later events never overtake it. */
  private async publishBatch(batch: OutboxEvent[]): Promise<{ done: string[]; failure: Error | undefined }> {
    const done: string[] = [];
    for (const event of batch) {
      const ctx = contextFromHeaders((name) => event.headers[name]);
      try {
        await runWithContext(ctx, () => this.bus.publishOutboxEvent(event));
        done.push(event.id);
      } catch (err) {
        const failure = err instanceof Error ? err : new Error(String(err));
        runWithContext(ctx, () =>
          this.log.warn({ err: failure, eventId: event.id, subject: event.subject }, 'outbox event publish failed'),
        );
        return { done, failure };
      }
    }
    return { done, failure: undefined };
  }
}
