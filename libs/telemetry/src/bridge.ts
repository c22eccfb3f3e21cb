import { context, propagation, trace, SpanKind, ROOT_CONTEXT, type Context, type Span } from '@opentelemetry/api';
import type { RequestContext, SpanKindName, SpanOptions, TraceBridge } from '@paymesh/core';

const tracer = () => trace.getTracer('paymesh');

const KINDS: Record<SpanKindName, SpanKind> = {
  consumer: SpanKind.CONSUMER,
  producer: SpanKind.PRODUCER,
  internal: SpanKind.INTERNAL,
};

/** Runs `fn` in `span`, ending it when `fn` (or its promise) is done; errors mark the span. */
function inSpan<T>(span: Span, fn: () => T): T {
  const fail = (err: unknown) => {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: 2, message: err instanceof Error ? err.message : String(err) });
  };
  try {
    const out = fn();
    if (out instanceof Promise) {
      return out.then(
        (v: unknown) => {
          span.end();
          return v;
        },
        (err: unknown) => {
          fail(err);
          span.end();
          throw err;
        },
      ) as T;
    }
    span.end();
    return out;
  } catch (err) {
    fail(err);
    span.end();
    throw err;
  }
}

function start<T>(
  name: string,
  opts: SpanOptions | undefined,
  requestId: string | undefined,
  parent: Context,
  fn: () => T,
): T {
  const attributes = { ...(opts?.attributes ?? {}), ...(requestId ? { 'request.id': requestId } : {}) };
  return tracer().startActiveSpan(name, { kind: KINDS[opts?.kind ?? 'consumer'], attributes }, parent, (span) =>
    inSpan(span, fn),
  );
}

/** Connects the request context of @paymesh/core to OpenTelemetry's active context. */
export const otelBridge: TraceBridge = {
  inject(carrier) {
    propagation.inject(context.active(), carrier);
  },
  runInSpan(ctx: RequestContext, spanName, fn, opts) {
    const carrier: Record<string, string> = {};
    if (ctx.traceparent) carrier.traceparent = ctx.traceparent;
    if (ctx.tracestate) carrier.tracestate = ctx.tracestate;
    return start(spanName, opts, ctx.requestId, propagation.extract(ROOT_CONTEXT, carrier), fn);
  },
  runInChildSpan(spanName, fn, opts) {
    return start(spanName, opts, undefined, context.active(), fn);
  },
  tagActiveSpan(key, value) {
    trace.getSpan(context.active())?.setAttribute(key, value);
  },
  activeTraceId() {
    const sc = trace.getSpan(context.active())?.spanContext();
    return sc && sc.traceId !== '00000000000000000000000000000000' ? sc.traceId : undefined;
  },
};

/** Tags the active span (HTTP server span, for instance) with the request ID. */
export function tagActiveSpan(requestId: string): void {
  trace.getSpan(context.active())?.setAttribute('request.id', requestId);
}
