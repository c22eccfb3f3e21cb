import { context, propagation, trace, SpanKind, ROOT_CONTEXT } from '@opentelemetry/api';
import type { RequestContext, TraceBridge } from '@paymesh/core';

const tracer = () => trace.getTracer('paymesh');

/** Connects the request context of @paymesh/core to OpenTelemetry's active context. */
export const otelBridge: TraceBridge = {
  inject(carrier) {
    propagation.inject(context.active(), carrier);
  },
  runInSpan(ctx: RequestContext, spanName, fn) {
    const carrier: Record<string, string> = {};
    if (ctx.traceparent) carrier.traceparent = ctx.traceparent;
    if (ctx.tracestate) carrier.tracestate = ctx.tracestate;
    const parent = propagation.extract(ROOT_CONTEXT, carrier);
    return tracer().startActiveSpan(
      spanName,
      { kind: SpanKind.CONSUMER, attributes: { 'request.id': ctx.requestId } },
      parent,
      (span) => {
        try {
          const out = fn();
          if (out instanceof Promise) {
            return out.finally(() => span.end()) as typeof out;
          }
          span.end();
          return out;
        } catch (err) {
          span.end();
          throw err;
        }
      },
    );
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
