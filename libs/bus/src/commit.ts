import { contextHeaders } from '@paymesh/core';
import {
  isVersionConflict,
  type DocumentStore,
  type NewOutboxEvent,
  type OutboxEvent,
  type TxScope,
} from '@paymesh/store';
import { makeEvent, type EventEnvelope } from './envelope';

/** Event subject -> shape of its `data` (e.g. `EventMap` of @paymesh/contracts). */
export type EventTypes = Record<string, unknown>;

/** Where committed events go to be published at once ({@link OutboxRelay} is one). */
export interface CommitHandoff {
  /** Told to outbox watchers, so the relay publishing these events is not woken by them. */
  readonly origin?: string;
  handoff(events: readonly OutboxEvent[]): void;
}

/** A store transaction that can also emit events. */
export interface CommitScope<M extends EventTypes> extends TxScope {
  /**
   * Adds an event, typed by its subject, to be written to the outbox with this transaction and
   * published right after it commits. `id` should be deterministic (`eventId(...)` of the fact)
   * so a retried or republished event is deduplicated.
   */
  emit<S extends keyof M & string>(
    subject: S,
    data: M[S],
    opts: { id: string; occurredAt?: string },
  ): EventEnvelope<M[S]>;
}

export interface CommitterOptions {
  store: DocumentStore;
  /** Publishes committed events at once; without one they wait for the relay's poll. */
  relay?: CommitHandoff;
  /** Runs of the transaction before a version conflict is given up; default 5. */
  attempts?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The one way to save state and the events it causes: runs `fn` in a store transaction, writes
 * the emitted events to the outbox in the same transaction (one statement), re-runs the whole
 * transaction when a compare-and-set lost to another writer (VERSION_CONFLICT), and after the
 * commit hands the events to the relay, which publishes them at once. A crash after the commit
 * loses nothing: the events are in the outbox and the relay's poll publishes them.
 */
export class Committer<M extends EventTypes> {
  private readonly store: DocumentStore;
  private readonly relay: CommitHandoff | undefined;
  private readonly attempts: number;

  constructor(opts: CommitterOptions) {
    this.store = opts.store;
    this.relay = opts.relay;
    this.attempts = opts.attempts ?? 5;
  }

  /**
   * `fn` may run more than once (after a version conflict): it must read what it decides on
   * inside the transaction and keep side effects outside the store for after the commit.
   */
  async commit<R>(fn: (tx: CommitScope<M>) => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(fn);
      } catch (err) {
        if (!isVersionConflict(err) || attempt >= this.attempts) throw err;
        // Each conflict means another writer committed; a little jitter keeps losers from colliding again.
        await sleep(Math.random() * Math.min(20, 2 ** attempt));
      }
    }
  }

  private async once<R>(fn: (tx: CommitScope<M>) => Promise<R>): Promise<R> {
    let events: NewOutboxEvent[] = [];
    const result = await this.store.transaction(async (tx) => {
      events = [];
      const scope: CommitScope<M> = {
        collection: (name) => tx.collection(name),
        enqueue: (e, options) => tx.enqueue(e, options),
        nextSequence: (key, startAt) => tx.nextSequence(key, startAt),
        insertNumbered: (name, doc, numbering) => tx.insertNumbered(name, doc, numbering),
        emit: (subject, data, opts) => {
          const envelope = makeEvent(subject, data, { id: opts.id, occurredAt: opts.occurredAt });
          events.push({ id: envelope.id, subject, payload: envelope, headers: contextHeaders() });
          return envelope;
        },
      };
      const out = await fn(scope);
      if (events.length > 0) await tx.enqueue(events, { origin: this.relay?.origin ?? '' });
      return out;
    });
    if (events.length > 0 && this.relay) {
      const createdAt = new Date().toISOString();
      this.relay.handoff(events.map((e) => ({ ...e, createdAt })));
    }
    return result;
  }
}
