import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';

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
 * The Origin allow-list of the buyer-facing routes, as CORS consults it: the hosted checkout's
 * origin, and otherwise checkout's own answer for the site behind the session or transaction the
 * request names (its frontend domains), the same check that answers 403 to a foreign origin.
 */
export interface OriginAllowList {
  mainFrontendOrigin: string;
  /**
   * Resolves true when checkout lets `origin` use this checkout session. `req` is the request
   * being decided, so that the answer can serve its handler too.
   */
  sessionAllows(sessionPublicId: string, origin: string, req: FastifyRequest): Promise<boolean>;
  /** Resolves true when checkout lets `origin` use this transaction's site. */
  transactionAllows(transactionId: string, origin: string): Promise<boolean>;
}

const CACHE_MS = 60_000;
/** How long an origin checkout accepted for some session may preflight transaction creation. */
const VERIFIED_ORIGIN_MS = 30 * 60_000;
const MAX_ENTRIES = 10_000;

class TtlSet {
  private readonly entries = new Map<string, number>();
  constructor(private readonly ttlMs: number) {}
  has(key: string): boolean {
    const until = this.entries.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.entries.delete(key);
    return false;
  }
  add(key: string): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, Date.now() + this.ttlMs);
  }
}

const SESSION_PATH = /^\/api\/v1\/checkouts\/([^/?#]+)/;
const TRANSACTION_PATH = /^\/api\/v1\/transactions\/([^/?#]+)\/(status|cancel|mark-pending)(?:[?#]|$)/;
const CREATE_PATH = /^\/api\/v1\/(?:transactions|billing-requests)\/create(?:[?#]|$)/;

function bodySession(req: FastifyRequest): string | undefined {
  const body = req.body;
  if (typeof body !== 'object' || body === null || !('sessionPublicId' in body)) return undefined;
  const id = body.sessionPublicId;
  return typeof id === 'string' && id.length > 0 && id.length <= 100 ? id : undefined;
}

/**
 * Decides whether a request's Origin gets CORS headers: only an origin the allow-list accepts for
 * what the request names is reflected, never an arbitrary one. Positive answers are cached briefly.
 * A preflight of transaction creation carries no body (the session is named there), so it passes
 * for origins checkout accepted for some session recently (the buyer page loads its checkout first).
 */
export function originDecider(list: OriginAllowList): (req: FastifyRequest, origin: string) => Promise<boolean> {
  const accepted = new TtlSet(CACHE_MS);
  const verifiedOrigins = new TtlSet(VERIFIED_ORIGIN_MS);
  const ask = async (key: string, origin: string, check: () => Promise<boolean>): Promise<boolean> => {
    if (accepted.has(key)) return true;
    const ok = await check().catch(() => false);
    if (ok) {
      accepted.add(key);
      verifiedOrigins.add(origin);
    }
    return ok;
  };
  return async (req, origin) => {
    if (!isHttpOrigin(origin)) return false;
    if (origin === list.mainFrontendOrigin) return true;
    const path = req.url;
    const session = SESSION_PATH.exec(path)?.[1] ?? bodySession(req);
    if (session)
      return ask(`s:${session}:${origin}`, origin, () => list.sessionAllows(decodeURIComponent(session), origin, req));
    const tx = TRANSACTION_PATH.exec(path)?.[1];
    if (tx) return ask(`t:${tx}:${origin}`, origin, () => list.transactionAllows(decodeURIComponent(tx), origin));
    if (CREATE_PATH.test(path) && req.method === 'OPTIONS') return verifiedOrigins.has(origin);
    return false;
  };
}

const BASE: FastifyCorsOptions = {
  methods: ['GET', 'POST'],
  allowedHeaders: ['Content-Type', 'X-Request-ID', 'traceparent', 'tracestate', 'Idempotency-Key'],
  exposedHeaders: ['X-Request-ID', 'Idempotent-Replayed'],
  credentials: false,
  maxAge: 600,
};

/**
 * CORS of the buyer-facing routes, with no credentials: the Origin is reflected only when the
 * Origin allow-list accepts it (see {@link originDecider}); opaque and foreign origins get no CORS
 * headers. Runs before the handler, once the body is parsed (transaction routes name their
 * session in the body).
 */
export function buyerCorsOptions(list: OriginAllowList): FastifyCorsOptions {
  const decide = originDecider(list);
  return {
    hook: 'preHandler',
    delegator: async (req: FastifyRequest) => {
      const origin = req.headers.origin;
      const allowed = typeof origin === 'string' && (await decide(req, origin));
      return { ...BASE, origin: allowed ? origin : false };
    },
  };
}
