import type { FastifyCorsOptions } from '@fastify/cors';

/** Whether a header value is an http(s) origin exactly as browsers send it (`scheme://host[:port]`). */
export function isHttpOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * CORS of the buyer-facing routes: every http(s) Origin is reflected (preflight and response), with
 * no credentials. Which origins may use a checkout is decided per request by checkout (the 403 of
 * the Origin/Referer allow-list); a preflight cannot make that decision because it carries no body
 * (transaction create names its session there). `Origin: null` and other opaque origins get no
 * CORS headers.
 */
export const buyerCorsOptions: FastifyCorsOptions = {
  origin: (origin, cb) => cb(null, origin !== undefined && isHttpOrigin(origin) ? origin : false),
  methods: ['GET', 'POST'],
  allowedHeaders: ['Content-Type', 'X-Request-ID', 'traceparent', 'tracestate'],
  exposedHeaders: ['X-Request-ID'],
  credentials: false,
  maxAge: 600,
};
