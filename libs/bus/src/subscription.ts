import { contextFromHeaders, runWithContext, type Logger } from '@paymesh/core';
import { ConsumerEvents, type ConsumerMessages, type JetStreamClient, type JsMsg } from 'nats';
import { retryDelayMs, type BackoffOptions } from './backoff';
import { decodeEnvelope, type EventEnvelope } from './envelope';
import { fromNatsHeaders, messagingAttributes } from './headers';
import { PoisonEventError } from './poison';
import type { BusCounters } from './stats';
import { eventSubjectFromWire } from './subjects';

/** Delivery details passed to a handler next to the envelope. */
export interface DeliveryMeta {
  /** Event subject without the namespace prefix, e.g. `payments.transaction.status_changed`. */
  subject: string;
  /** Whether this message was delivered before (a previous attempt failed or timed out). */
  redelivered: boolean;
  /** 1 for the first delivery, 2 for the first redelivery, ... */
  deliveryCount: number;
  /** Message headers, names lower-cased (request ID, traceparent, `Nats-Msg-Id`, ...). */
  headers: Record<string, string>;
  /** Sequence of the message in its stream. */
  streamSequence: number;
}

/**
 * Processes one event. Delivery is at-least-once: the same event (same `envelope.id`) can arrive
 * again after a crash, a lost ack or a republish outside the duplicate window, so handlers must be
 * idempotent (e.g. record processed ids, or make the state change a compare-and-set).
 *
 * Resolve to acknowledge; throw to have the message redelivered after a backoff (until the
 * subscription's `maxDeliver`, then it is terminated and logged); throw {@link PoisonEventError}
 * to terminate it at once.
 */
export type EventHandler<T = unknown> = (event: EventEnvelope<T>, meta: DeliveryMeta) => Promise<void> | void;

/** A running durable subscription. */
export interface Subscription {
  /** Stream the consumer reads. */
  readonly stream: string;
  /** Durable consumer name. */
  readonly consumer: string;
  /** Stops fetching, finishes the messages already received, then resolves; idempotent. */
  stop(): Promise<void>;
}

/** What {@link ConsumerLoop} needs; assembled by the bus. */
export interface ConsumerLoopOptions {
  js: JetStreamClient;
  logger: Logger;
  namespace: string;
  stream: string;
  consumer: string;
  /** Name of the automatic process the handler is, for the audit trail (`<service>/<durable>`). */
  process?: string;
  handler: EventHandler;
  maxDeliver: number;
  ackWaitMs: number;
  backoff: BackoffOptions;
  /** Handlers run at once; also the messages pulled per request (the most a `stop()` waits to finish). */
  concurrency: number;
  /** Re-creates stream and consumer after the consumer vanished. */
  ensure: () => Promise<void>;
  /** Called once the loop has ended. */
  onStopped: () => void;
  /**
   * Round trip to the server on the consuming connection. `stop()` awaits it after ending the pull,
   * so the server has seen the pull's inbox go away before anything else happens: an event
   * published right after `stop()` then waits for the next subscriber instead of being handed to
   * the dead pull (and redelivered only after the ack wait).
   */
  flush: () => Promise<void>;
  /** Where received, acked, naked and terminated messages are counted. */
  counters: BusCounters;
}

const RESTART_DELAY_MS = 1_000;
const PULL_EXPIRES_MS = 10_000;

/** Pull loop of one durable consumer: fetches, runs the handler in the message's request context, acks. */
export class ConsumerLoop implements Subscription {
  readonly stream: string;
  readonly consumer: string;
  private readonly opts: ConsumerLoopOptions;
  private readonly log: Logger;
  private stopping = false;
  private messages: ConsumerMessages | undefined;
  private done: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  /** Handlers running now. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(opts: ConsumerLoopOptions) {
    this.opts = opts;
    this.stream = opts.stream;
    this.consumer = opts.consumer;
    this.log = opts.logger.child({ stream: opts.stream, consumer: opts.consumer });
  }

  /** Handlers running now. */
  get handling(): number {
    return this.inFlight.size;
  }

  /** Starts the loop in the background. */
  start(): void {
    this.done = this.run().finally(() => this.opts.onStopped());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.messages?.stop();
    await this.opts.flush().catch(() => undefined);
    await this.done;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const consumer = await this.opts.js.consumers.get(this.stream, this.consumer);
        // Pulls expire after 10 s, so idle heartbeats come every 5 s: after a NATS restart a pull the
        // server dropped is noticed (two missed heartbeats) and re-issued within ~10 s instead of the
        // client default's ~30 s. The cost is one pull request per consumer per 10 s when idle.
        const messages = await consumer.consume({ max_messages: this.opts.concurrency, expires: PULL_EXPIRES_MS });
        this.messages = messages;
        void this.watch(messages);
        if (this.stopping) messages.stop();
        for await (const msg of messages) {
          // Bounded concurrency: the next message waits for a free slot. Order between messages
          // is not kept; handlers are idempotent and state changes compare-and-set.
          if (this.inFlight.size >= this.opts.concurrency) await Promise.race(this.inFlight);
          const task: Promise<void> = this.handle(msg)
            .catch((err: unknown) => this.log.error({ err }, 'event handling failed unexpectedly'))
            .finally(() => this.inFlight.delete(task));
          this.inFlight.add(task);
        }
      } catch (err) {
        if (!this.stopping) this.log.warn({ err }, 'event consumer failed; restarting');
      } finally {
        this.messages = undefined;
        // Graceful stop and restarts alike: every received message is finished first.
        await Promise.allSettled([...this.inFlight]);
      }
      if (this.stopping) break;
      await this.pause(RESTART_DELAY_MS);
      if (this.stopping) break;
      try {
        await this.opts.ensure();
      } catch (err) {
        this.log.warn({ err }, 'could not re-create event consumer; will retry');
      }
    }
  }

  /** Ends the current iterator when the consumer or stream is gone, so `run` re-creates them. */
  private async watch(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const status of await messages.status()) {
        if (
          status.type === ConsumerEvents.ConsumerDeleted ||
          status.type === ConsumerEvents.ConsumerNotFound ||
          status.type === ConsumerEvents.StreamNotFound
        ) {
          if (!this.stopping) this.log.warn({ event: status.type }, 'event consumer lost; re-creating');
          messages.stop();
          return;
        }
        if (status.type === ConsumerEvents.HeartbeatsMissed) {
          this.log.debug({ missed: status.data }, 'event consumer missed heartbeats');
        }
      }
    } catch (err) {
      this.log.debug({ err }, 'event consumer status stream ended');
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async handle(msg: JsMsg): Promise<void> {
    const headers = fromNatsHeaders(msg.headers);
    const ctx = contextFromHeaders((name) => headers[name]);
    // The handler acts as this consumer (a named automatic process); the publisher's actor caused it.
    if (this.opts.process) {
      const initiator = ctx.actor?.type === 'process' ? ctx.initiator : (ctx.actor ?? ctx.initiator);
      ctx.actor = { type: 'process', id: this.opts.process };
      ctx.operation = this.opts.process;
      if (initiator) ctx.initiator = initiator;
    }
    // Each consumed event gets a span continuing the publisher's trace (traceparent header).
    const subject = eventSubjectFromWire(this.opts.namespace, msg.subject);
    this.opts.counters.consumed += 1;
    this.opts.counters.subject(subject).consumed += 1;
    await runWithContext(ctx, () => this.process(msg, headers), `consume ${subject}`, {
      kind: 'consumer',
      attributes: { ...messagingAttributes(subject, 'process'), 'messaging.consumer.group.name': this.opts.consumer },
    });
  }

  private async process(msg: JsMsg, headers: Record<string, string>): Promise<void> {
    const subject = eventSubjectFromWire(this.opts.namespace, msg.subject);
    const deliveryCount = msg.info.deliveryCount;
    const log = this.log.child({ subject, streamSeq: msg.seq, deliveryCount });

    let envelope: EventEnvelope;
    try {
      envelope = decodeEnvelope(msg.data);
    } catch (err) {
      log.error({ err }, 'event is not a valid envelope; terminated');
      this.term(msg);
      return;
    }

    const meta: DeliveryMeta = {
      subject,
      redelivered: msg.redelivered,
      deliveryCount,
      headers,
      streamSequence: msg.seq,
    };
    // Keeps the message from timing out while a slow handler is still working on it.
    const heartbeat = setInterval(() => msg.working(), Math.max(500, Math.floor(this.opts.ackWaitMs / 3)));
    heartbeat.unref();
    try {
      await this.opts.handler(envelope, meta);
    } catch (err) {
      this.fail(msg, err, log.child({ eventId: envelope.id }), deliveryCount);
      return;
    } finally {
      clearInterval(heartbeat);
    }
    // A plain ack: waiting for the server to confirm it costs a round trip per message, and a lost
    // ack only means a redelivery, which idempotent handlers absorb.
    msg.ack();
    this.opts.counters.acked += 1;
  }

  private term(msg: JsMsg): void {
    msg.term();
    this.opts.counters.terminated += 1;
  }

  private fail(msg: JsMsg, err: unknown, log: Logger, deliveryCount: number): void {
    if (err instanceof PoisonEventError) {
      log.error({ err }, 'event rejected as unprocessable; terminated');
      this.term(msg);
      return;
    }
    if (this.opts.maxDeliver > 0 && deliveryCount >= this.opts.maxDeliver) {
      log.error({ err, maxDeliver: this.opts.maxDeliver }, 'event handler failed on the last attempt; terminated');
      this.term(msg);
      return;
    }
    const delayMs = retryDelayMs(deliveryCount, this.opts.backoff);
    if (this.opts.maxDeliver === -1 && deliveryCount % 10 === 0) {
      log.error(
        { err, deliveryCount, retryInMs: delayMs },
        'event handler keeps failing; still retrying (never dropped)',
      );
    } else {
      log.warn({ err, retryInMs: delayMs }, 'event handler failed; will be redelivered');
    }
    msg.nak(delayMs);
    this.opts.counters.naked += 1;
  }
}
