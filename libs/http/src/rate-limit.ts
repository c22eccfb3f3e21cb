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
  RATE_LIMIT_PER_MINUTE: envInt(100),
  RATE_LIMIT_PER_5_MINUTES: envInt(500),
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

export interface RateLimitOptions {
  config: RateLimitConfig;
  /** Key prefix in Redis, e.g. `<deployment namespace>:gateway-admin`. */
  namespace: string;
  logger: Logger;
  /**
   * Identity of an authenticated caller (e.g. `key:<keyId>`), or undefined to count the request
   * against the client IP. Must not throw.
   */
  clientId?: (req: FastifyRequest) => Promise<string | undefined>;
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
    if (!(await connected(redis, 2000))) warn(new Error(`no connection to ${config.REDIS_URL}`), 'rate-limit store (Redis) unreachable; requests are not being limited');

    await app.register(rateLimit, { global: false, redis, nameSpace: `${opts.namespace}:rl:` });
    const windows: Window[] = [
      { label: 'minute', max: config.RATE_LIMIT_PER_MINUTE, ms: 60_000 },
      { label: '5 minutes', max: config.RATE_LIMIT_PER_5_MINUTES, ms: 300_000 },
    ];
    const clients = new WeakMap<FastifyRequest, string>();
    const limiters = windows.map((w) => ({
      window: w,
      check: app.createRateLimit({ max: w.max, timeWindow: w.ms, keyGenerator: (req) => `${w.ms / 1000}s:${clients.get(req) ?? `ip:${normalizeIp(req.ip)}`}` }),
    }));
    const allow = new Set(config.RATE_LIMIT_ALLOWLIST);

    app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.routeOptions.config?.rateLimit === false) return;
      const ip = normalizeIp(req.ip);
      if (allow.has(ip)) return;
      clients.set(req, (await opts.clientId?.(req)) ?? `ip:${ip}`);
      let results;
      try {
        results = await Promise.all(limiters.map(async (l) => ({ window: l.window, r: await l.check(req) })));
      } catch (err) {
        warn(err, 'rate-limit store (Redis) unreachable; requests are not being limited');
        return;
      }
      let tightest: { remaining: number; max: number; reset: number } | undefined;
      let exceeded: { window: Window; retryAfter: number } | undefined;
      for (const { window, r } of results) {
        if (r.isAllowed) return;
        if (!tightest || r.remaining < tightest.remaining) tightest = { remaining: r.remaining, max: r.max, reset: r.ttlInSeconds };
        if (r.isExceeded && (!exceeded || r.ttlInSeconds > exceeded.retryAfter)) exceeded = { window, retryAfter: Math.max(1, r.ttlInSeconds) };
      }
      if (tightest) {
        reply.header('X-RateLimit-Limit', tightest.max);
        reply.header('X-RateLimit-Remaining', tightest.remaining);
        reply.header('X-RateLimit-Reset', tightest.reset);
      }
      if (exceeded) {
        reply.header('Retry-After', exceeded.retryAfter);
        req.log.info({ client: clients.get(req), window: exceeded.window.label }, 'rate limit exceeded');
        throw new RateLimitedError(`rate limit exceeded: at most ${exceeded.window.max} requests per ${exceeded.window.label}; retry in ${exceeded.retryAfter} s`);
      }
    });
  },
  { name: 'paymesh-rate-limit' },
);
