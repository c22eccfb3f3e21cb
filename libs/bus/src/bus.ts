import {
  NotSupportedError,
  UnavailableError,
  ValidationError,
  activeTraceHeaders,
  contextFromHeaders,
  contextHeaders,
  runInSpan,
  runWithContext,
  type Logger,
} from '@paymesh/core';
import {
  DebugEvents,
  Events,
  NatsError,
  connect,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from 'nats';
import type { BackoffOptions } from './backoff';
import { ensureConsumer, startAfterPredecessors, type DurableConsumerSpec } from './consumer';
import type { EventEnvelope } from './envelope';
import { messagingAttributes, toNatsHeaders } from './headers';
import type { OutboxEvent } from './outbox-types';
import { PoisonEventError } from './poison';
import { BusCounters, type BusStats } from './stats';
import { DEFAULT_STREAM_LIMITS, assertReplicas, ensureStreamPatiently, type StreamLimits } from './stream';
import { ConsumerLoop, type EventHandler, type Subscription } from './subscription';
import {
  assertEventSubject,
  assertNamespace,
  consumerName,
  domainOf,
  eventSubjectFromWire,
  isSubjectFilter,
  streamName,
  wireSubject,
} from './subjects';

/** Options of {@link Bus.connect}. */
export interface BusConnectOptions {
  /** NATS server URL, e.g. `nats://127.0.0.1:4222` (comma-separated for several servers). */
  url: string;
  /** Mesh namespace (the `BUS_NAMESPACE` setting): prefixes every subject, stream and consumer. */
  namespace: string;
  /** Name of this service; part of consumer names and of the NATS connection name. */
  service: string;
  logger: Logger;
  /** Limits of the domain streams this bus creates; defaults in {@link DEFAULT_STREAM_LIMITS}. */
  streamLimits?: Partial<StreamLimits>;
  /**
   * Replicas of the domain streams (`BUS_STREAM_REPLICAS`, 1 to 5; default 1): new streams get
   * this many, existing ones are raised to it but never lowered. Durable consumers inherit their
   * stream's count.
   */
  streamReplicas?: number;
  /** How long a publish waits for the JetStream ack; default 5 000 ms. */
  publishTimeoutMs?: number;
  /** How long the first connection attempt may take; default 5 000 ms. */
  connectTimeoutMs?: number;
  /** Pause between reconnect attempts; default 2 000 ms. Reconnection never gives up. */
  reconnectWaitMs?: number;
}

/** Outcome of a publish. */
export interface PublishResult {
  /** Stream that stored the message. */
  stream: string;
  /** Stream sequence (of the original message when `duplicate`). */
  seq: number;
  /** The id was already published inside the duplicate window; nothing new was stored. */
  duplicate: boolean;
}

/** Settings shared by every {@link SubscribeOptions} variant. */
export interface SubscribeBaseOptions {
  /** Durable name, unique within this service (e.g. `payment-status`); the consumer survives restarts. */
  durable: string;
  /**
   * Event subjects to receive; wildcards allowed after the domain (`payments.>`,
   * `payments.transaction.*`). All filters must be in one domain. More than one filter needs
   * NATS server 2.10 or later.
   */
  subjects: string | readonly string[];
  /**
   * Deliveries before a failing event is terminated (and logged as an error); default 10. `-1`:
   * never give up (for events whose loss would lose money: redelivered with the capped backoff,
   * logged as an error every 10th failure, until the handler succeeds).
   */
  maxDeliver?: number;
  /** Milliseconds the server waits for an ack before redelivering; default 30 000. */
  ackWait?: number;
  /** Redelivery delay after a handler failure; default 1 s doubling up to 60 s. */
  backoff?: BackoffOptions;
  /** Where a new durable starts: every stored event (default) or only events published from now on. */
  deliver?: 'all' | 'new';
  /**
   * Durables of this service (names as given to `subscribe`) that this one replaces, e.g. two
   * subscriptions of one subject merged into one. Created while one of them exists, the new durable
   * starts right after the last event they have all acknowledged (see `startAfterPredecessors`);
   * without any, as `deliver` says. The predecessors are only looked at (their ack floors), never
   * consumed or deleted: a replica of the previous version may still be handling them during a
   * rolling deploy (events handled by both then: handlers are idempotent); delete them once none
   * runs.
   */
  takesOverFrom?: readonly string[];
  /**
   * Handlers run at once by this subscription, and messages pulled per request; default 16.
   * Messages are then not handled in stream order: handlers must be idempotent and make their
   * state changes compare-and-set (as every handler here must anyway, for redeliveries).
   */
  concurrency?: number;
  /** Most unacknowledged messages outstanding at once; default 1 000. */
  maxAckPending?: number;
}

/** {@link Bus.subscribe} options for a handler that takes `data` as `unknown`. */
export interface PlainSubscribeOptions extends SubscribeBaseOptions {
  handler: EventHandler<unknown>;
  decode?: undefined;
}

/**
 * {@link Bus.subscribe} options with a decoder: `decode(envelope.data)` runs first (e.g. a zod
 * schema's `parse`) and the handler gets its result; an exception from `decode` terminates the
 * message as unprocessable.
 */
export interface DecodedSubscribeOptions<T> extends SubscribeBaseOptions {
  decode: (data: unknown) => T;
  handler: EventHandler<T>;
}

/** Options of {@link Bus.subscribe}. */
export type SubscribeOptions<T = unknown> = PlainSubscribeOptions | DecodedSubscribeOptions<T>;

/** Connection state for health endpoints. */
/** What {@link Bus.watch} tells its caller. */
export interface WatchHandlers {
  /** An event was published on one of the watched subjects (the event subject, without namespace). */
  onEvent(subject: string): void;
  /** Watching (at once when connected, and after every reconnect): from now on no event is missed. */
  onUp(): void;
  /** The connection was lost: events may be missed until the next `onUp`. */
  onDown(): void;
}

export interface BusHealth {
  /** True while the client is connected to a server. */
  connected: boolean;
  status: 'connected' | 'reconnecting' | 'closed';
  namespace: string;
  service: string;
  /** Server the client is (or was last) connected to. */
  server: string | undefined;
  /** Successful reconnects since connect. */
  reconnects: number;
  /** When the connection was last lost, if ever. */
  lastDisconnectAt: string | undefined;
  /** Running subscriptions. */
  subscriptions: number;
}

/** Hides credentials embedded in a server URL. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/g, '//***@');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isNoResponders(err: unknown): boolean {
  return err instanceof NatsError && err.code === '503';
}

function versionAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const [maj, min] = (version ?? '0.0').split('.').map((p) => Number.parseInt(p, 10));
  if (maj === undefined || min === undefined || Number.isNaN(maj) || Number.isNaN(min)) return false;
  return maj > major || (maj === major && min >= minor);
}

/**
 * The event bus of one service: JetStream publish with deduplication and durable pull
 * subscriptions, scoped to a mesh namespace.
 *
 * Naming (see `subjects.ts`): event subject `<domain>.<entity>.<past-verb>` travels as NATS subject
 * `<namespace>.<subject>`; each domain has one stream `<NAMESPACE>_<DOMAIN>` capturing
 * `<namespace>.<domain>.>`; durable consumers are named `<NAMESPACE>_<SERVICE>_<DURABLE>`.
 * Streams are created on first use (publish or subscribe) with the same settings by every service.
 */
export class Bus {
  /** Mesh namespace this bus publishes and subscribes in. */
  readonly namespace: string;
  /** Service this bus belongs to. */
  readonly service: string;
  private readonly nc: NatsConnection;
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  private readonly log: Logger;
  private readonly limits: StreamLimits;
  private readonly streamReplicas: number;
  private readonly publishTimeoutMs: number;
  private readonly streams = new Map<string, Promise<void>>();
  private readonly subscriptions = new Set<ConsumerLoop>();
  private readonly counters = new BusCounters();
  private connected = true;
  private reconnecting = false;
  private reconnects = 0;
  private lastDisconnectAt: string | undefined;
  private closing: Promise<void> | undefined;
  private readonly watchers = new Set<WatchHandlers>();

  private constructor(nc: NatsConnection, jsm: JetStreamManager, opts: BusConnectOptions) {
    this.nc = nc;
    this.jsm = jsm;
    this.js = nc.jetstream();
    this.namespace = opts.namespace;
    this.service = opts.service;
    this.log = opts.logger.child({ component: 'bus' });
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...opts.streamLimits };
    this.streamReplicas = opts.streamReplicas ?? 1;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
    void this.watchConnection();
  }

  /**
   * Connects to NATS (reconnecting forever after the first success) and checks JetStream.
   *
   * @throws UnavailableError naming the URL when the server cannot be reached or has no JetStream.
   */
  static async connect(opts: BusConnectOptions): Promise<Bus> {
    assertNamespace(opts.namespace);
    if (opts.service.trim() === '') throw new ValidationError('bus service name is required', { field: 'service' });
    try {
      assertReplicas(opts.streamReplicas ?? 1);
    } catch (err) {
      throw new ValidationError(errorMessage(err), { field: 'streamReplicas' });
    }
    const where = redactUrl(opts.url);
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: opts.url.split(',').map((s) => s.trim()),
        name: `${opts.namespace}:${opts.service}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: opts.reconnectWaitMs ?? 2_000,
        timeout: opts.connectTimeoutMs ?? 5_000,
      });
    } catch (err) {
      throw new UnavailableError(`cannot connect to NATS at ${where}: ${errorMessage(err)}`, {
        code: 'BUS_CONNECT_FAILED',
        cause: err,
      });
    }
    let jsm: JetStreamManager;
    try {
      jsm = await nc.jetstreamManager();
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new UnavailableError(`NATS at ${where} has no usable JetStream: ${errorMessage(err)}`, {
        code: 'BUS_JETSTREAM_UNAVAILABLE',
        cause: err,
      });
    }
    const bus = new Bus(nc, jsm, opts);
    bus.log.info({ server: nc.getServer(), namespace: opts.namespace }, 'connected to NATS');
    return bus;
  }

  /** Name of the stream holding events of `domain` (e.g. `PAYMESH_PAYMENTS`). */
  streamFor(domain: string): string {
    return streamName(this.namespace, domain);
  }

  /** Creates or updates the stream of `domain`; idempotent. */
  async ensureStream(domain: string): Promise<void> {
    domainOf(domain);
    this.streams.delete(domain);
    await this.streamReady(domain);
  }

  /** Ensures the stream once per process; a failed attempt is retried on next use. */
  private streamReady(domain: string): Promise<void> {
    let ready = this.streams.get(domain);
    if (!ready) {
      ready = ensureStreamPatiently(this.jsm, this.namespace, domain, this.limits, {
        replicas: this.streamReplicas,
        logger: this.log,
      }).then(() => undefined);
      ready.catch(() => this.streams.delete(domain));
      this.streams.set(domain, ready);
    }
    return ready;
  }

  /**
   * Publishes an event and waits for JetStream to store it. The envelope id is the `Nats-Msg-Id`,
   * so publishing the same id again inside the duplicate window stores nothing and still succeeds
   * (`duplicate: true`). Headers carry the current request context, overridden by `headers`.
   *
   * @throws ValidationError when `subject` is malformed or differs from `envelope.type`.
   */
  async publish<T>(
    subject: string,
    envelope: EventEnvelope<T>,
    headers: Record<string, string> = {},
  ): Promise<PublishResult> {
    assertEventSubject(subject);
    if (envelope.type !== subject) {
      throw new ValidationError(`envelope type "${envelope.type}" does not match subject "${subject}"`, {
        field: 'type',
      });
    }
    // With tracing, the publish is a producer span and the headers name it as the consumers' parent.
    return runInSpan(
      `publish ${subject}`,
      () => this.send(subject, envelope.id, JSON.stringify(envelope), { ...contextHeaders(), ...headers }),
      {
        kind: 'producer',
        attributes: { ...messagingAttributes(subject, 'send'), 'messaging.message.id': envelope.id },
      },
    );
  }

  /**
   * Publishes an event read from a transactional outbox: its stored payload as the body, its id
   * as `Nats-Msg-Id` and its stored headers (the context of the request that wrote it). With
   * tracing, the publish is a producer span continuing the stored `traceparent`, and the message
   * carries that span's `traceparent` instead, so consumers are its children.
   */
  async publishOutboxEvent(event: Pick<OutboxEvent, 'id' | 'subject' | 'payload' | 'headers'>): Promise<PublishResult> {
    assertEventSubject(event.subject);
    const ctx = contextFromHeaders((name) => event.headers[name]);
    return runWithContext(
      ctx,
      () =>
        this.send(event.subject, event.id, JSON.stringify(event.payload), {
          ...event.headers,
          ...activeTraceHeaders(),
        }),
      `publish ${event.subject}`,
      {
        kind: 'producer',
        attributes: { ...messagingAttributes(event.subject, 'send'), 'messaging.message.id': event.id },
      },
    );
  }

  private async send(
    subject: string,
    msgId: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<PublishResult> {
    if (msgId === '') throw new ValidationError('event id is required', { field: 'id' });
    const domain = domainOf(subject);
    const stream = this.streamFor(domain);
    const data = Buffer.from(body, 'utf8');
    const attempt = async (): Promise<PublishResult> => {
      await this.streamReady(domain);
      const ack = await this.js.publish(wireSubject(this.namespace, subject), data, {
        msgID: msgId,
        headers: toNatsHeaders(headers),
        expect: { streamName: stream },
        timeout: this.publishTimeoutMs,
      });
      this.counters.published += 1;
      this.counters.subject(subject).published += 1;
      if (ack.duplicate) this.counters.duplicates += 1;
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    };
    try {
      return await attempt();
    } catch (err) {
      // The stream was removed behind our back: re-create it once and retry.
      if (!isNoResponders(err)) throw err;
      this.streams.delete(domain);
      return attempt();
    }
  }

  /**
   * Starts a durable subscription (explicit-ack pull consumer) and resolves once the consumer
   * exists. Each message's handler runs inside the request context rebuilt from its headers, so
   * its log lines carry the publisher's request ID. See {@link EventHandler} for ack, retry and
   * idempotency rules.
   *
   * @throws ValidationError for malformed subjects or names; NotSupportedError for several
   * filters on a server older than 2.10.
   */
  subscribe<T>(opts: DecodedSubscribeOptions<T>): Promise<Subscription>;
  subscribe(opts: PlainSubscribeOptions): Promise<Subscription>;
  async subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription> {
    if (this.closing) throw new UnavailableError('bus is closed');
    const filters = typeof opts.subjects === 'string' ? [opts.subjects] : [...opts.subjects];
    if (filters.length === 0) throw new ValidationError('subscribe needs at least one subject', { field: 'subjects' });
    for (const f of filters) {
      if (!isSubjectFilter(f)) {
        throw new ValidationError(`invalid subject filter "${f}"`, { field: 'subjects' });
      }
    }
    const domains = new Set(filters.map(domainOf));
    const [domain] = domains;
    if (domain === undefined || domains.size > 1) {
      throw new ValidationError('all subjects of one subscription must be in one domain', { field: 'subjects' });
    }
    if (filters.length > 1 && !versionAtLeast(this.nc.info?.version, 2, 10)) {
      throw new NotSupportedError('several subject filters need NATS server 2.10 or later');
    }
    const maxDeliver = opts.maxDeliver ?? 10;
    const ackWaitMs = opts.ackWait ?? 30_000;
    if (!Number.isInteger(maxDeliver) || (maxDeliver < 1 && maxDeliver !== -1)) {
      throw new ValidationError('maxDeliver must be a positive integer or -1 (unlimited)', { field: 'maxDeliver' });
    }
    if (!(ackWaitMs >= 1_000)) throw new ValidationError('ackWait must be at least 1000 ms', { field: 'ackWait' });

    const concurrency = opts.concurrency ?? 16;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ValidationError('concurrency must be a positive integer', { field: 'concurrency' });
    }

    const stream = this.streamFor(domain);
    const name = consumerName(this.namespace, this.service, opts.durable);
    const spec: DurableConsumerSpec = {
      stream,
      name,
      filters: filters.map((f) => wireSubject(this.namespace, f)),
      maxDeliver,
      ackWaitMs,
      maxAckPending: opts.maxAckPending ?? 1_000,
      deliver: opts.deliver ?? 'all',
      description: `${this.service}/${opts.durable}`,
    };
    const predecessors = (opts.takesOverFrom ?? []).map((d) => consumerName(this.namespace, this.service, d));
    const ensure = async (): Promise<void> => {
      await this.ensureStream(domain);
      const startSeq =
        predecessors.length === 0 ? undefined : await startAfterPredecessors(this.jsm, stream, name, predecessors);
      await ensureConsumer(this.jsm, startSeq === undefined ? spec : { ...spec, deliver: { startSeq } });
    };
    await ensure();

    const loop = new ConsumerLoop({
      js: this.js,
      logger: this.log,
      namespace: this.namespace,
      stream,
      consumer: name,
      process: `${this.service}/${opts.durable}`,
      handler: this.wrapHandler(opts),
      maxDeliver,
      ackWaitMs,
      backoff: opts.backoff ?? {},
      concurrency,
      ensure,
      onStopped: () => this.subscriptions.delete(loop),
      flush: () => this.nc.flush(),
      counters: this.counters,
    });
    this.subscriptions.add(loop);
    loop.start();
    this.log.info({ stream, consumer: name, subjects: filters }, 'subscribed');
    return loop;
  }

  private wrapHandler<T>(opts: SubscribeOptions<T>): EventHandler {
    if (opts.decode === undefined) return opts.handler;
    const { decode, handler } = opts;
    return async (event, meta) => {
      let data: T;
      try {
        data = decode(event.data);
      } catch (err) {
        throw new PoisonEventError(`event data of ${event.type} rejected by decoder: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      await handler({ ...event, data }, meta);
    };
  }

  /** Connection state, for `/internal/health`. */
  /**
   * Tells this process of every event published on `filters` (subject filters such as
   * `checkout.site.*`), by any service or replica, as it is published: a plain NATS subscription,
   * nothing durable, no acknowledgement. For dropping per-process caches when what they hold
   * changes. Resolves once the server has the subscription; returns a function that stops.
   */
  async watch(filters: string[], handlers: WatchHandlers): Promise<() => void> {
    for (const f of filters) {
      if (!isSubjectFilter(f)) throw new ValidationError(`invalid subject filter "${f}"`, { field: 'filters' });
    }
    const subs = filters.map((f) =>
      this.nc.subscribe(wireSubject(this.namespace, f), {
        callback: (err, msg) => {
          if (!err) handlers.onEvent(eventSubjectFromWire(this.namespace, msg.subject));
        },
      }),
    );
    await this.nc.flush();
    this.watchers.add(handlers);
    if (this.connected && !this.nc.isClosed()) handlers.onUp();
    return () => {
      this.watchers.delete(handlers);
      for (const sub of subs) sub.unsubscribe();
      handlers.onDown();
    };
  }

  health(): BusHealth {
    const closed = this.nc.isClosed();
    const connected = !closed && this.connected;
    return {
      connected,
      status: closed ? 'closed' : connected ? 'connected' : 'reconnecting',
      namespace: this.namespace,
      service: this.service,
      server: this.nc.getServer(),
      reconnects: this.reconnects,
      lastDisconnectAt: this.lastDisconnectAt,
      subscriptions: this.subscriptions.size,
    };
  }

  /** Messages published and consumed so far, and handlers running now. */
  stats(): BusStats {
    let handling = 0;
    for (const s of this.subscriptions) handling += s.handling;
    return this.counters.snapshot(handling);
  }

  /** Stops every subscription (letting in-flight handlers finish), flushes and closes; idempotent. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = (async () => {
        await Promise.all([...this.subscriptions].map((s) => s.stop()));
        if (!this.nc.isClosed()) {
          try {
            await this.nc.drain();
          } catch (err) {
            this.log.warn({ err }, 'NATS drain failed; closing');
            await this.nc.close();
          }
        }
        this.log.info('bus closed');
      })();
    }
    return this.closing;
  }

  private async watchConnection(): Promise<void> {
    for await (const s of this.nc.status()) {
      switch (s.type) {
        case Events.Disconnect:
          this.connected = false;
          this.lastDisconnectAt = new Date().toISOString();
          this.log.warn({ server: s.data }, 'disconnected from NATS; reconnecting');
          for (const w of this.watchers) w.onDown();
          break;
        case Events.Reconnect:
          this.connected = true;
          this.reconnecting = false;
          this.reconnects += 1;
          this.log.info({ server: s.data }, 'reconnected to NATS');
          // The client re-subscribed before telling of the reconnect.
          for (const w of this.watchers) w.onUp();
          break;
        case DebugEvents.Reconnecting:
          if (!this.reconnecting) this.log.debug('reconnecting to NATS');
          this.reconnecting = true;
          break;
        case Events.LDM:
          this.log.warn({ server: s.data }, 'NATS server entering lame duck mode');
          break;
        case Events.Error:
          this.log.warn({ detail: s.data }, 'NATS async error');
          break;
        default:
          break;
      }
    }
  }
}
