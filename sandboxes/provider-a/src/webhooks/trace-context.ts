import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';

/** Headers of a request that a webhook it causes carries on (W3C trace context and request ID). */
const CARRIED = ['traceparent', 'tracestate', 'x-request-id'] as const;

const causing = new AsyncLocalStorage<Record<string, string>>();

/**
 * NOTE: the real provider starts every webhook afresh. This sandbox instead sends a webhook with
 * the `traceparent`, `tracestate` and `X-Request-ID` of the API or pay-page request that caused
 * its event (when that request had them), so a test can follow one payment from checkout to IPN
 * in one trace. Headers that are missing or malformed are simply not carried.
 */
export function carryTraceContext(app: FastifyInstance): void {
  // preHandler: body parsing runs outside the request's async context; the handler runs inside this one.
  app.addHook('preHandler', (req, _reply, done) => {
    const carried: Record<string, string> = {};
    for (const name of CARRIED) {
      const v = req.headers[name];
      if (typeof v === 'string' && v.length <= 512 && !/[\r\n]/.test(v)) carried[name] = v;
    }
    if (Object.keys(carried).length === 0) done();
    else causing.run(carried, done);
  });
}

/** Trace headers of the request being handled, for the webhooks its events cause. */
export function causingTraceHeaders(): Record<string, string> | undefined {
  return causing.getStore();
}
