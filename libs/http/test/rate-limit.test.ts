import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import { errorEnvelopePlugin, rateLimitConfigSchema, rateLimitPlugin, registerHealthRoutes, requestContextPlugin } from '../src';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const apps: FastifyInstance[] = [];
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  redis.disconnect();
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: createLogger({ service: 'rl-test', level: 'info', destination }) };
}

async function build(env: Record<string, string>, namespace = `rltest${randomBytes(4).toString('hex')}`) {
  const { lines, logger } = capture();
  const config = rateLimitConfigSchema.parse({ REDIS_URL, ...env });
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
  await app.register(requestContextPlugin);
  await app.register(errorEnvelopePlugin);
  await app.register(rateLimitPlugin, {
    config,
    namespace,
    logger,
    clientId: async (req) => (typeof req.headers['x-client'] === 'string' ? `key:${req.headers['x-client']}` : undefined),
  });
  registerHealthRoutes(app, 'rl-test', () => []);
  app.get('/thing', async () => ({ ok: true }));
  await app.ready();
  apps.push(app);
  return { app, lines, namespace };
}

const hit = (app: FastifyInstance, ip = '10.1.1.1', headers: Record<string, string> = {}, url = '/thing') => app.inject({ method: 'GET', url, remoteAddress: ip, headers });

describe('rate limiting (Redis-backed, both windows)', () => {
  it('answers the request after the per-minute cap with 429, Retry-After and the error envelope', async () => {
    const { app, namespace } = await build({ RATE_LIMIT_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i++) {
      const ok = await hit(app);
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await hit(app);
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.json()).toEqual({ error: expect.stringMatching(/rate limit exceeded: at most 3 requests per minute/) });
    // The counters live in Redis under the gateway's namespace.
    const keys = await redis.keys(`${namespace}:rl:*`);
    expect(keys.some((k) => k.endsWith('60s:ip:10.1.1.1'))).toBe(true);
    expect(keys.some((k) => k.endsWith('300s:ip:10.1.1.1'))).toBe(true);
  });

  it('also enforces the 5-minute window', async () => {
    const { app } = await build({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_PER_5_MINUTES: '4' });
    for (let i = 0; i < 4; i++) expect((await hit(app)).statusCode).toBe(200);
    const limited = await hit(app);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
    expect(limited.json().error).toMatch(/per 5 minutes/);
  });

  it('counts authenticated callers per identity, anonymous ones per IP', async () => {
    const { app } = await build({ RATE_LIMIT_PER_MINUTE: '2' });
    const ip = '10.2.2.2';
    expect((await hit(app, ip, { 'x-client': 'a' })).statusCode).toBe(200);
    expect((await hit(app, ip, { 'x-client': 'a' })).statusCode).toBe(200);
    expect((await hit(app, ip, { 'x-client': 'a' })).statusCode).toBe(429);
    expect((await hit(app, ip, { 'x-client': 'b' })).statusCode).toBe(200);
    expect((await hit(app, ip)).statusCode).toBe(200);
    expect((await hit(app, '10.2.2.3')).statusCode).toBe(200);
  });

  it('never limits allow-listed addresses (IPv4-mapped forms included) or health endpoints', async () => {
    const { app } = await build({ RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_ALLOWLIST: '10.3.3.3, 10.9.9.9' });
    for (let i = 0; i < 5; i++) expect((await hit(app, '::ffff:10.3.3.3')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await hit(app, '10.4.4.4', {}, '/health')).statusCode).toBe(200);
    expect((await hit(app, '10.4.4.4')).statusCode).toBe(200);
    expect((await hit(app, '10.4.4.4')).statusCode).toBe(429);
  });

  it('shares counters between replicas of a gateway', async () => {
    const namespace = `rltest${randomBytes(4).toString('hex')}`;
    const a = await build({ RATE_LIMIT_PER_MINUTE: '3' }, namespace);
    const b = await build({ RATE_LIMIT_PER_MINUTE: '3' }, namespace);
    expect((await hit(a.app, '10.5.5.5')).statusCode).toBe(200);
    expect((await hit(b.app, '10.5.5.5')).statusCode).toBe(200);
    expect((await hit(a.app, '10.5.5.5')).statusCode).toBe(200);
    expect((await hit(b.app, '10.5.5.5')).statusCode).toBe(429);
  });

  it('fails open with a warning when Redis is unreachable', async () => {
    const { app, lines } = await build({ RATE_LIMIT_PER_MINUTE: '1', REDIS_URL: 'redis://127.0.0.1:1' });
    for (let i = 0; i < 4; i++) expect((await hit(app)).statusCode).toBe(200);
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('requests are not being limited'))).toBe(true);
  });
});
