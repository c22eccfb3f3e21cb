import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  contextFromHeaders,
  REQUEST_ID_HEADER,
  requestIdFrom,
  runWithContext,
  tagActiveSpan,
  withoutServiceClaims,
} from '@paymesh/core';

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Gives every request a request context (a sane incoming X-Request-ID is kept, otherwise a new
 * one is minted), runs the handler inside it, and echoes X-Request-ID on every response,
 * errors and 404s included.
 */
export const requestContextPlugin = fp(
  async (app: FastifyInstance, opts: { onRequestId?: (id: string) => void }) => {
    app.addHook('onRequest', (req, reply, done) => {
      // Actor and operation are set by the gateway once it knows the caller, never taken from outside.
      const ctx = withoutServiceClaims(contextFromHeaders((name) => headerValue(req.headers[name])));
      // Keep fastify's own request id (used on its log lines) equal to ours.
      if (req.id !== ctx.requestId) ctx.requestId = req.id;
      req.requestContext = ctx;
      reply.header('X-Request-ID', ctx.requestId);
      opts.onRequestId?.(ctx.requestId);
      // With tracing, the HTTP server span is active here.
      tagActiveSpan(ctx.requestId);
      runWithContext(ctx, done);
    });
    // Body parsing runs on socket callbacks outside the context; re-enter it for the handler.
    app.addHook('preHandler', (req, _reply, done) => {
      if (req.requestContext) runWithContext(req.requestContext, done);
      else done();
    });
    app.addHook('onSend', (req, reply, payload, done) => {
      if (!reply.hasHeader('X-Request-ID') && req.requestContext)
        reply.header('X-Request-ID', req.requestContext.requestId);
      done(null, payload);
    });
  },
  { name: 'paymesh-request-context' },
);

declare module 'fastify' {
  interface FastifyRequest {
    requestContext?: import('@paymesh/core').RequestContext;
  }
}

export { REQUEST_ID_HEADER };

/** Fastify `genReqId`: keeps a sane incoming X-Request-ID, otherwise mints one. */
export function genRequestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  return requestIdFrom(req.headers[REQUEST_ID_HEADER]);
}
