import {
  REQUEST_ID_HEADER,
  contextFromHeaders,
  runWithContext,
  trackBackground,
  type Clock,
  type Logger,
} from '@paymesh/core';
import { WorkLoop } from '@paymesh/runtime';
import type { DocumentStore, StoredDoc } from '@paymesh/store';
import type { IpnDeps } from '../app/deps';
import { processDelivery, type ProcessResult } from '../app/process-delivery';
import { DELIVERIES, type DeliveryDoc } from '../store/collections';

/** Options of {@link DueWorkScheduler}. */
export interface SchedulerOptions<R = ProcessResult> {
  /** Longest sleep between two looks at the store (other replicas may have created work). */
  pollIntervalMs: number;
  /** Items worked on at once by this process. */
  concurrency: number;
  /** Called after each processed item (tests, metrics). */
  onProcessed?: (id: string, result: R) => void;
}

/** A slot of a {@link DueWorkScheduler} held for one item (see `reserve`): used once, by `run` or `release`. */
export interface Slot<R> {
  /** Works on the item in the slot, as a launched item (its result counts like any other). */
  run(work: () => Promise<R>): void;
  /** Gives the slot back unused. */
  release(): void;
}

/** A stored item with a due time: `state: 'pending'` and `nextAttemptAt` (ISO) tell when. */
export type DueDoc = StoredDoc & { state: string; nextAttemptAt: string | null };

/** What a {@link DueWorkScheduler} works on: a collection of due items and how to process one. */
export interface DueWork<D extends DueDoc, R> {
  /** Names the scheduler in logs (e.g. "ipn", "email"). */
  name: string;
  collection: string;
  process(id: string, known: D): Promise<R>;
  /**
   * Whether a result finishes its item for good (nothing of it stays due). After such a result the
   * scheduler skips the pass it would make to look for more work when the last pass found none
   * and nothing since may have left any waiting (see `idle`). Without it every result is followed
   * by a pass.
   */
  settled?(result: R): boolean;
}

/**
 * The durable retry loop: repeatedly picks items whose `nextAttemptAt` has come (oldest first)
 * and processes them, up to `concurrency` at once. All state lives in the store, so a restart
 * just carries on; several replicas may run it side by side (claims are compare-and-set).
 */
export class DueWorkScheduler<D extends DueDoc, R> {
  private readonly deps: { store: DocumentStore; clock: Clock };
  private readonly opts: SchedulerOptions<R>;
  private readonly work: DueWork<D, R>;
  private readonly log: Logger;
  private readonly running = new Map<string, Promise<void>>();
  private readonly loop: WorkLoop;
  private stopped = false;
  /**
   * The last pass found no pending item beyond the ones it launched, and nothing since may have
   * left one waiting here (an offer turned away, an unsettled result, a failure): then a settled
   * result needs no pass to look for more. Work other replicas create is theirs, or the poll's.
   */
  private idle = false;
  /** Bumped by whatever may leave an item waiting, so a pass under way does not declare `idle`. */
  private unsettled = 0;

  constructor(
    deps: { store: DocumentStore; clock: Clock; logger: Logger },
    opts: SchedulerOptions<R>,
    work: DueWork<D, R>,
  ) {
    this.deps = deps;
    this.opts = opts;
    this.work = work;
    this.log = deps.logger.child({ component: `${work.name}-scheduler` });
    this.loop = new WorkLoop(
      this.log,
      () => this.tick(),
      opts.pollIntervalMs,
      'scheduler pass failed; will retry',
      'notifications-ipn/scheduler',
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due work now (e.g. right after a delivery was created). */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Work just created by this process (e.g. a delivery the event consumer stored): processed at
   * once when a slot is free, without a pass over the store to find it; otherwise the next pass
   * picks it up. Processing checks that it is due and claims it by compare-and-set, as for work a
   * pass found.
   */
  offer(doc: D): void {
    // Stopping: the stored work waits for the next start (or another replica's pass).
    if (this.stopped || this.running.has(doc.id)) return;
    if (this.running.size >= this.opts.concurrency) {
      this.mayBeWaiting();
      this.wake();
      return;
    }
    this.launch(doc.id, doc);
  }

  /**
   * Holds a free slot for the item `id` (e.g. while the event consumer stores it already claimed),
   * or null when none is free, the item runs already or the scheduler is stopping. The holder
   * must `run` or `release` it (`stop` waits for that).
   */
  reserve(id: string): Slot<R> | null {
    if (this.stopped || this.running.has(id) || this.running.size >= this.opts.concurrency) return null;
    let free = (): void => undefined;
    this.running.set(
      id,
      new Promise<void>((resolve) => {
        free = resolve;
      }),
    );
    let used = false;
    const take = (): boolean => {
      if (used) return false;
      used = true;
      this.running.delete(id);
      return true;
    };
    return {
      run: (work) => {
        // A `stop` under way waits for the placeholder: it settles once the work has.
        if (take()) void this.launchWork(id, work).finally(free);
      },
      release: () => {
        if (take()) free();
      },
    };
  }

  private mayBeWaiting(): void {
    this.unsettled += 1;
    this.idle = false;
  }

  /** Stops picking new work and waits for the attempts in flight to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * One pass, one query: the pending deliveries in `nextAttemptAt` order, enough of them to fill
   * the free slots (skipping those already running) plus one, so the first one not yet due tells
   * how long to sleep. Returns that sleep.
   */
  private async tick(): Promise<number> {
    const seen = this.unsettled;
    this.idle = false;
    if (this.running.size >= this.opts.concurrency) return this.opts.pollIntervalMs;
    const collection = this.deps.store.collection<D>(this.work.collection);
    const limit = this.opts.concurrency + 1;
    const { items } = await collection.find(
      { state: 'pending', nextAttemptAt: { $exists: true } },
      { sort: { nextAttemptAt: 1 }, limit },
    );
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    for (const d of items) {
      if (d.nextAttemptAt === null || d.nextAttemptAt > nowIso) {
        // The earliest delivery not yet due: sleep until then (the running ones wake us when done).
        const inMs = Date.parse(d.nextAttemptAt ?? '') - now.getTime();
        return Number.isFinite(inMs)
          ? Math.min(this.opts.pollIntervalMs, Math.max(inMs, 10))
          : this.opts.pollIntervalMs;
      }
      if (this.running.size >= this.opts.concurrency) return this.opts.pollIntervalMs;
      if (!this.running.has(d.id)) this.launch(d.id, d);
    }
    // Everything returned was due: more may be waiting behind it once slots free up.
    if (items.length === limit) return 10;
    this.idle = this.unsettled === seen;
    return this.opts.pollIntervalMs;
  }

  private launch(id: string, known: D): void {
    void this.launchWork(id, () => this.work.process(id, known));
  }

  private launchWork(id: string, work: () => Promise<R>): Promise<void> {
    const task = trackBackground(work()).then(
      (result) => {
        this.running.delete(id);
        if (!this.work.settled?.(result)) this.mayBeWaiting();
        // A pass looks for work this one may have left or let through (a later delivery of the
        // same transaction made due, items turned away while the slots were full).
        if (!this.idle) this.wake();
        try {
          this.opts.onProcessed?.(id, result);
        } catch (err) {
          this.log.warn({ err }, 'onProcessed hook failed');
        }
      },
      (err: unknown) => {
        // No immediate wake: a failing store would otherwise be hammered; the poll retries.
        this.running.delete(id);
        this.mayBeWaiting();
        this.log.warn({ err, id }, 'processing failed; will retry');
      },
    );
    this.running.set(id, task);
    return task;
  }
}

/**
 * Runs one attempt in the request context the delivery was recorded in (its log lines carry that
 * request ID; with tracing, a span continues that trace and the POST is its child).
 */
export function inDeliveryContext<T>(known: DeliveryDoc, fn: () => Promise<T>): Promise<T> {
  const stored = known.requestContext;
  if (!stored || !stored[REQUEST_ID_HEADER]) return fn();
  return runWithContext(
    contextFromHeaders((name) => stored[name]),
    fn,
    'ipn delivery',
    {
      kind: 'internal',
      attributes: { 'ipn.delivery.id': known.id, 'ipn.transaction.id': known.transactionId },
    },
  );
}

/** Results after which the delivery is final: nothing of it is due again. */
const SETTLED: ReadonlySet<ProcessResult> = new Set([
  'succeeded',
  'failed',
  'superseded',
  'exhausted',
  'site-not-found',
]);

/** The IPN deliveries' retry loop. */
export class DeliveryScheduler extends DueWorkScheduler<DeliveryDoc, ProcessResult> {
  constructor(deps: IpnDeps, opts: SchedulerOptions) {
    super(deps, opts, {
      name: 'ipn',
      collection: DELIVERIES,
      process: (id, known) => inDeliveryContext(known, () => processDelivery(deps, id, known)),
      settled: (result) => SETTLED.has(result),
    });
  }
}
