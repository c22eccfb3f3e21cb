import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { envBool, envInt, RateLimitedError, type Logger } from '@paymesh/core';

/** Rate-limit settings every gateway reads from its environment (merge into the service's config schema). */
/**
 * Which reverse proxies' `X-Forwarded-For` to believe when deriving the client address (rate
 * limits, logs): `false` (default: the socket peer is the client), `true` (any), or
 * comma-separated addresses/CIDRs of the proxies — as fastify's `trustProxy` takes them.
 */
export const trustProxySchema = z
  .string()
  .default('false')
  .transform((v): boolean | string => {
    const t = v.trim();
    if (t === '' || t === 'false') return false;
    if (t === 'true') return true;
    return t;
  });

export const rateLimitConfigSchema = z.object({
  TRUST_PROXY: trustProxySchema,
  /** Redis holding the shared counters (one set per gateway, shared by its replicas). */
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  RATE_LIMIT_ENABLED: envBool(true),
  /** Budget of one client: an API key, a dashboard user, or an anonymous caller's IP address. */
  RATE_LIMIT_PER_MINUTE: envInt(100),
  RATE_LIMIT_PER_5_MINUTES: envInt(500),
  /**
   * Budget of one organization, shared by all its keys and users: minting more keys does not
   * multiply what an organization may send.
   */
  RATE_LIMIT_ORG_PER_MINUTE: envInt(300),
  RATE_LIMIT_ORG_PER_5_MINUTES: envInt(1500),
  /**
   * Budget of a client on each sensitive route (sign-in, token refresh, single-use token and
   * portal/OTP routes), on top of the others: guessing is slow even from many keys' worth of budget.
   */
  RATE_LIMIT_SENSITIVE_PER_MINUTE: envInt(10),
  RATE_LIMIT_SENSITIVE_PER_5_MINUTES: envInt(30),
  /** Comma-separated client IP addresses (e.g. the merchant's or our own servers) that are never limited. */
  RATE_LIMIT_ALLOWLIST: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => normalizeIp(s.trim()))
        .filter(Boolean),
    ),
});
export type RateLimitConfig = z.infer<typeof rateLimitConfigSchema>;

/** An authenticated caller as the limiter counts it: its own id and the organization it acts for. */
export type RateLimitIdentity = string | { id: string; organization?: string | undefined };

/** Budgets a route can ask for on top of the per-client and per-organization ones. */
export type RateLimitBudget = 'sensitive';

/**
 * Route config asking for a stricter budget: `config: { rateLimitBudget: 'sensitive' }` on
 * sign-in, OTP and single-use token routes.
 */
export interface RateLimitRouteConfig {
  rateLimitBudget?: RateLimitBudget;
}

export interface RateLimitOptions {
  config: RateLimitConfig;
  /** Key prefix in Redis, e.g. `<deployment namespace>:gateway-admin`. */
  namespace: string;
  logger: Logger;
  /**
   * Identity of an authenticated caller (e.g. `key:<keyId>`, or `{ id, organization }` so the
   * organization's shared budget applies too), or undefined to count the request against the
   * client IP. Must not throw.
   */
  clientId?: (req: FastifyRequest) => Promise<RateLimitIdentity | undefined>;
  /**
   * Routes (fastify route URLs such as `/api/v1/auth`) with the sensitive budget, for routes
   * registered elsewhere; a route may also say so itself with `config: { rateLimitBudget: 'sensitive' }`.
   */
  sensitiveRoutes?: readonly RegExp[];
}

/** `::ffff:10.0.0.1` -> `10.0.0.1`, so allow-list entries match both socket forms. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

interface Window {
  label: string;
  max: number;
  ms: number;
}

/** Whom a counter belongs to; the part of the Redis key after the window and what 429 names. */
type Subject = 'client' | 'organization' | 'sensitive';

const SUBJECT_TEXT: Record<Subject, string> = {
  client: '',
  organization: ' for this organization',
  sensitive: ' on this route',
};

const WARN_EVERY_MS = 30_000;

function connected(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/**
 * Two fixed windows per client (100 requests per minute and 500 per 5 minutes by default), kept
 * in Redis through @fastify/rate-limit's store so every replica of a gateway shares them.
 * A client is the authenticated caller when `clientId` names one, otherwise the IP address.
 * Callers acting for an organization also count against that organization's budget (shared by
 * all its keys), and sensitive routes against a stricter per-client, per-route budget.
 * Over the limit: 429, `Retry-After` (seconds), and the error envelope. Routes with
 * `config: { rateLimit: false }` (health) and allow-listed IPs are exempt. When Redis cannot be
 * reached the request is let through and a warning is logged (fail open): an outage of the
 * counter store must not take the payment APIs down with it.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: RateLimitOptions) => {
    const { config, logger } = opts;
    if (!config.RATE_LIMIT_ENABLED) {
      logger.warn('rate limiting disabled (RATE_LIMIT_ENABLED=false)');
      return;
    }
    let lastWarn = 0;
    const warn = (err: unknown, msg: string) => {
      const now = Date.now();
      if (now - lastWarn < WARN_EVERY_MS) return;
      lastWarn = now;
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, msg);
    };
    const redis = new Redis(config.REDIS_URL, {
      // Fail fast instead of queueing while Redis is away; requests then pass (fail open).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    redis.on('error', (err) => warn(err, 'rate-limit store (Redis) unreachable; requests are not being limited'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
    // Give Redis a moment to connect so the first requests are counted; start anyway if it is down.
    if (!(await connected(redis, 2000)))
      warn(
        new Error(`no connection to ${config.REDIS_URL}`),
        'rate-limit store (Redis) unreachable; requests are not being limited',
      );

    await app.register(rateLimit, { global: false, redis, nameSpace: `${opts.namespace}:rl:` });
    const budgets: Record<Subject, Window[]> = {
      client: [
        { label: 'minute', max: config.RATE_LIMIT_PER_MINUTE, ms: 60_000 },
        { label: '5 minutes', max: config.RATE_LIMIT_PER_5_MINUTES, ms: 300_000 },
      ],
      organization: [
        { label: 'minute', max: config.RATE_LIMIT_ORG_PER_MINUTE, ms: 60_000 },
        { label: '5 minutes', max: config.RATE_LIMIT_ORG_PER_5_MINUTES, ms: 300_000 },
      ],
      sensitive: [
        { label: 'minute', max: config.RATE_LIMIT_SENSITIVE_PER_MINUTE, ms: 60_000 },
        { label: '5 minutes', max: config.RATE_LIMIT_SENSITIVE_PER_5_MINUTES, ms: 300_000 },
      ],
    };
    // One limiter per subject and window; the request's key for each subject is set per request.
    const subjectKeys = new WeakMap<FastifyRequest, Partial<Record<Subject, string>>>();
    const limiters = (Object.keys(budgets) as Subject[]).flatMap((subject) =>
      budgets[subject].map((w) => ({
        subject,
        window: w,
        check: app.createRateLimit({
          max: w.max,
          timeWindow: w.ms,
          keyGenerator: (req) => `${w.ms / 1000}s:${subjectKeys.get(req)?.[subject] ?? ''}`,
        }),
      })),
    );
    const allow = new Set(config.RATE_LIMIT_ALLOWLIST);
    const sensitiveRoutes = opts.sensitiveRoutes ?? [];
    let warnedForwarded = false;

    app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.routeOptions.config?.rateLimit === false) return;
      if (!config.TRUST_PROXY && !warnedForwarded && req.headers['x-forwarded-for'] !== undefined) {
        warnedForwarded = true;
        logger.warn(
          'requests carry X-Forwarded-For but TRUST_PROXY is not set: every client behind that proxy shares one rate-limit budget',
        );
      }
      const ip = normalizeIp(req.ip);
      if (allow.has(ip)) return;
      const identity = await opts.clientId?.(req);
      const client = identity === undefined ? `ip:${ip}` : typeof identity === 'string' ? identity : identity.id;
      const organization = typeof identity === 'object' ? identity.organization : undefined;
      const routeUrl = req.routeOptions.url ?? '';
      const routeConfig = req.routeOptions.config as RateLimitRouteConfig | undefined;
      const sensitive = routeConfig?.rateLimitBudget === 'sensitive' || sensitiveRoutes.some((r) => r.test(routeUrl));
      const keys: Partial<Record<Subject, string>> = { client };
      if (organization) keys.organization = `org:${organization}`;
      if (sensitive) keys.sensitive = `route:${req.method} ${routeUrl}:${client}`;
      subjectKeys.set(req, keys);
      let results;
      try {
        results = await Promise.all(
          limiters
            .filter((l) => keys[l.subject] !== undefined)
            .map(async (l) => ({ subject: l.subject, window: l.window, r: await l.check(req) })),
        );
      } catch (err) {
        warn(err, 'rate-limit store (Redis) unreachable; requests are not being limited');
        return;
      }
      let tightest: { remaining: number; max: number; reset: number } | undefined;
      let exceeded: { subject: Subject; window: Window; retryAfter: number } | undefined;
      for (const { subject, window, r } of results) {
        if (r.isAllowed) return;
        if (!tightest || r.remaining < tightest.remaining)
          tightest = { remaining: r.remaining, max: r.max, reset: r.ttlInSeconds };
        if (r.isExceeded && (!exceeded || r.ttlInSeconds > exceeded.retryAfter))
          exceeded = { subject, window, retryAfter: Math.max(1, r.ttlInSeconds) };
      }
      if (tightest) {
        reply.header('X-RateLimit-Limit', tightest.max);
        reply.header('X-RateLimit-Remaining', tightest.remaining);
        reply.header('X-RateLimit-Reset', tightest.reset);
      }
      if (exceeded) {
        reply.header('Retry-After', exceeded.retryAfter);
        req.log.info(
          { client, organization, subject: exceeded.subject, window: exceeded.window.label },
          'rate limit exceeded',
        );
        throw new RateLimitedError(
          `rate limit exceeded: at most ${exceeded.window.max} requests per ${exceeded.window.label}${SUBJECT_TEXT[exceeded.subject]}; retry in ${exceeded.retryAfter} s`,
        );
      }
    });
  },
  { name: 'paymesh-rate-limit' },
);
