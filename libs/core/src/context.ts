import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * Request context: the request ID and W3C trace context of the work being done. It travels in
 * gRPC metadata and NATS headers under the names below and is read from AsyncLocalStorage.
 */
export interface RequestContext {
  requestId: string;
  traceparent?: string;
  tracestate?: string;
  /** Who the work is done for (set by the gateways after authentication, by consumers and jobs). */
  actor?: Actor;
  /** The actor whose request caused the work of an automatic process (a consumer's event publisher). */
  initiator?: Actor;
  /** Name of the operation being done (an Admin route's operationId, a consumer's or job's name). */
  operation?: string;
}

/**
 * Who changed something, for the audit trail: an organization API key (id and name), a dashboard
 * user, a system key, a buyer (anonymous at checkout, or signed in to the portal), a payment
 * provider's webhook, or a named automatic process (consumer, job).
 */
export type ActorType = 'api_key' | 'user' | 'system_key' | 'buyer' | 'portal_session' | 'provider' | 'process';

export interface Actor {
  type: ActorType;
  /** The key's id, the user's id, the portal session's id, the provider's name, the process's name. */
  id: string;
  /** A readable name when there is one (the API key's name, the buyer's e-mail). */
  name?: string;
}

export const REQUEST_ID_HEADER = 'x-request-id';
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';
/** Actor, initiator and operation travel between services (gRPC metadata, NATS headers), never from outside. */
export const ACTOR_HEADER = 'x-paymesh-actor';
export const INITIATOR_HEADER = 'x-paymesh-initiator';
export const OPERATION_HEADER = 'x-paymesh-operation';

const ACTOR_TYPES: ReadonlySet<string> = new Set<ActorType>([
  'api_key',
  'user',
  'system_key',
  'buyer',
  'portal_session',
  'provider',
  'process',
]);
const OPERATION = /^[A-Za-z0-9._:-]{1,128}$/;

/** Header value of an actor: URI-encoded JSON (ASCII, so it fits gRPC metadata and NATS headers). */
export function encodeActor(actor: Actor): string {
  return encodeURIComponent(JSON.stringify(actor.name === undefined ? { type: actor.type, id: actor.id } : actor));
}

/** The actor of a header value; undefined when absent or malformed. */
export function decodeActor(value: string | undefined): Actor | undefined {
  if (!value || value.length > 2048) return undefined;
  try {
    const v: unknown = JSON.parse(decodeURIComponent(value));
    if (typeof v !== 'object' || v === null) return undefined;
    const { type, id, name } = v as Record<string, unknown>;
    if (typeof type !== 'string' || !ACTOR_TYPES.has(type) || typeof id !== 'string' || id.length === 0)
      return undefined;
    const actor: Actor = { type: type as ActorType, id: id.slice(0, 256) };
    if (typeof name === 'string' && name.length > 0) actor.name = name.slice(0, 256);
    return actor;
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` as a named automatic process: a fresh request ID unless one is current, the process as
 * actor and operation (the actor of the current context, if any, becomes the initiator).
 */
export function runAsProcess<T>(process: string, fn: () => T, operation: string = process): T {
  const current = storage.getStore();
  const ctx: RequestContext = {
    ...(current ?? { requestId: newRequestId() }),
    actor: { type: 'process', id: process },
    operation,
  };
  const initiator = current?.actor?.type === 'process' ? current.initiator : (current?.actor ?? current?.initiator);
  if (initiator) ctx.initiator = initiator;
  else delete ctx.initiator;
  return storage.run(ctx, fn);
}

const storage = new AsyncLocalStorage<RequestContext>();

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Whether an incoming request ID may be kept (bounded length, no header-injection characters). */
export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value);
}

export function newRequestId(): string {
  return randomUUID();
}

/** Keeps a sane incoming ID, otherwise mints a new one. */
export function requestIdFrom(value: unknown): string {
  const v = Array.isArray(value) ? value[0] : value;
  return isSaneRequestId(v) ? v : newRequestId();
}

/** Kind of a span of our own: consuming a message, publishing one, or work in between. */
export type SpanKindName = 'consumer' | 'producer' | 'internal';

/** What a span of our own says besides its name. */
export interface SpanOptions {
  /** Default `consumer` (the work continues a caller that is not waiting for it). */
  kind?: SpanKindName;
  attributes?: Record<string, string | number | boolean>;
}

/**
 * Bridge to the tracing system (OpenTelemetry), registered by the telemetry bootstrap. Core stays
 * free of tracing dependencies; without a bridge the traceparent is carried through unchanged.
 */
export interface TraceBridge {
  /** Writes the active span's `traceparent`/`tracestate` into the carrier. */
  inject(carrier: Record<string, string>): void;
  /** Runs `fn` inside a new span that continues the trace given by the context's traceparent. */
  runInSpan<T>(ctx: RequestContext, spanName: string, fn: () => T, opts?: SpanOptions): T;
  /** Runs `fn` inside a new span, a child of the active span (a root span when none is active). */
  runInChildSpan<T>(spanName: string, fn: () => T, opts?: SpanOptions): T;
  /** Trace ID of the active span, if any. */
  activeTraceId(): string | undefined;
  /** Sets an attribute on the active span (an instrumentation's HTTP server span, for instance). */
  tagActiveSpan(key: string, value: string): void;
}

let bridge: TraceBridge | undefined;

export function setTraceBridge(b: TraceBridge | undefined): void {
  bridge = b;
}

/** Puts the request ID on the active span (no-op without tracing), so a request ID finds its span. */
export function tagActiveSpan(requestId: string): void {
  bridge?.tagActiveSpan('request.id', requestId);
}

export function activeTraceId(): string | undefined {
  return bridge?.activeTraceId() ?? storage.getStore()?.traceparent?.split('-')[1];
}

/**
 * Runs `fn` with `ctx` as the current request context. With a span name (inbound gRPC call,
 * consumed event) the work also gets its own span continuing the caller's trace.
 */
export function runWithContext<T>(ctx: RequestContext, fn: () => T, spanName?: string, spanOpts?: SpanOptions): T {
  if (spanName && bridge) {
    const b = bridge;
    return storage.run(ctx, () => b.runInSpan(ctx, spanName, fn, spanOpts));
  }
  return storage.run(ctx, fn);
}

/**
 * Runs `fn` in a span of its own, a child of the active span (an event publish inside a request,
 * for instance). Without tracing it just runs `fn`.
 */
export function runInSpan<T>(spanName: string, fn: () => T, opts?: SpanOptions): T {
  if (!bridge) return fn();
  const requestId = storage.getStore()?.requestId;
  const attributes = requestId ? { ...opts?.attributes, 'request.id': requestId } : opts?.attributes;
  return bridge.runInChildSpan(spanName, fn, { ...opts, ...(attributes ? { attributes } : {}) });
}

/**
 * `traceparent`/`tracestate` of the active span, to send on with a message whose other headers
 * were stored earlier (an outbox event). Empty without tracing: the stored ones then travel as
 * they are.
 */
export function activeTraceHeaders(): Record<string, string> {
  const out: Record<string, string> = {};
  bridge?.inject(out);
  return out;
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Header map to propagate the current context (both gRPC metadata and NATS headers use it). */
export function contextHeaders(ctx: RequestContext | undefined = currentContext()): Record<string, string> {
  if (!ctx) return {};
  const out: Record<string, string> = { [REQUEST_ID_HEADER]: ctx.requestId };
  if (ctx.traceparent) out[TRACEPARENT_HEADER] = ctx.traceparent;
  if (ctx.tracestate) out[TRACESTATE_HEADER] = ctx.tracestate;
  if (ctx.actor) out[ACTOR_HEADER] = encodeActor(ctx.actor);
  if (ctx.initiator) out[INITIATOR_HEADER] = encodeActor(ctx.initiator);
  if (ctx.operation) out[OPERATION_HEADER] = ctx.operation;
  bridge?.inject(out);
  return out;
}

/** Builds a context from a header getter (HTTP headers, gRPC metadata or NATS headers). */
export function contextFromHeaders(get: (name: string) => string | undefined): RequestContext {
  const ctx: RequestContext = { requestId: requestIdFrom(get(REQUEST_ID_HEADER)) };
  const tp = get(TRACEPARENT_HEADER);
  if (tp) ctx.traceparent = tp;
  const ts = get(TRACESTATE_HEADER);
  if (ts) ctx.tracestate = ts;
  const actor = decodeActor(get(ACTOR_HEADER));
  if (actor) ctx.actor = actor;
  const initiator = decodeActor(get(INITIATOR_HEADER));
  if (initiator) ctx.initiator = initiator;
  const operation = get(OPERATION_HEADER);
  if (operation && OPERATION.test(operation)) ctx.operation = operation;
  return ctx;
}

/** The context without what only services may tell each other (for requests from outside). */
export function withoutServiceClaims(ctx: RequestContext): RequestContext {
  const rest: RequestContext = { ...ctx };
  delete rest.actor;
  delete rest.initiator;
  delete rest.operation;
  return rest;
}
