import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import {
  errorEnvelopePlugin,
  rateLimitConfigSchema,
  rateLimitPlugin,
  registerHealthRoutes,
  requestContextPlugin,
} from '../src';

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
    clientId: async (req) => {
      if (typeof req.headers['x-client'] !== 'string') return undefined;
      const id = `key:${req.headers['x-client']}`;
      return typeof req.headers['x-org'] === 'string' ? { id, organization: req.headers['x-org'] } : id;
    },
    sensitiveRoutes: [/^\/otp\/:id$/],
  });
  registerHealthRoutes(app, 'rl-test', () => []);
  app.get('/thing', async () => ({ ok: true }));
  app.post('/otp/:id', async () => ({ ok: true }));
  app.post('/sign-in', { config: { rateLimitBudget: 'sensitive' } }, async () => ({ ok: true }));
  await app.ready();
  apps.push(app);
  return { app, lines, namespace };
}

const hit = (app: FastifyInstance, ip = '10.1.1.1', headers: Record<string, string> = {}, url = '/thing') =>
  app.inject({ method: 'GET', url, remoteAddress: ip, headers });

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
    expect(limited.json()).toEqual({
      error: expect.stringMatching(/rate limit exceeded: at most 3 requests per minute/),
    });
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

  it('shares one organization budget between all its keys, so minting keys does not multiply it', async () => {
    const { app, namespace } = await build({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_ORG_PER_MINUTE: '4' });
    const asKey = (key: string, org = 'org-a') => hit(app, '10.6.6.6', { 'x-client': key, 'x-org': org });
    expect((await asKey('k1')).statusCode).toBe(200);
    expect((await asKey('k1')).statusCode).toBe(200);
    expect((await asKey('k2')).statusCode).toBe(200);
    expect((await asKey('k3')).statusCode).toBe(200);
    const limited = await asKey('k4');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatch(/at most 4 requests per minute for this organization/);
    // Another organization's keys are untouched.
    expect((await asKey('k5', 'org-b')).statusCode).toBe(200);
    const keys = await redis.keys(`${namespace}:rl:*`);
    expect(keys.some((k) => k.endsWith('60s:org:org-a'))).toBe(true);
  });

  it('gives sensitive routes a stricter per-client budget on top of the general one', async () => {
    const { app } = await build({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_SENSITIVE_PER_MINUTE: '2' });
    const post = (url: string, ip = '10.7.7.7') => app.inject({ method: 'POST', url, remoteAddress: ip });
    expect((await post('/otp/a')).statusCode).toBe(200);
    expect((await post('/otp/b')).statusCode).toBe(200);
    const limited = await post('/otp/c');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatch(/at most 2 requests per minute on this route/);
    // Other routes and other clients keep their budgets; a route can ask for the budget itself.
    expect((await hit(app, '10.7.7.7')).statusCode).toBe(200);
    expect((await post('/otp/a', '10.7.7.8')).statusCode).toBe(200);
    expect((await post('/sign-in')).statusCode).toBe(200);
    expect((await post('/sign-in')).statusCode).toBe(200);
    expect((await post('/sign-in')).statusCode).toBe(429);
  });

  it('warns once when a proxy forwards client addresses that TRUST_PROXY does not believe', async () => {
    const { app, lines } = await build({});
    await hit(app, '10.8.8.8', { 'x-forwarded-for': '203.0.113.9' });
    await hit(app, '10.8.8.8', { 'x-forwarded-for': '203.0.113.10' });
    expect(lines.filter((l) => String(l.msg).includes('TRUST_PROXY is not set'))).toHaveLength(1);
  });

  it('counts buyers behind a trusted ingress by their forwarded address', async () => {
    const { lines, logger } = capture();
    const config = rateLimitConfigSchema.parse({ REDIS_URL, RATE_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '10.9.0.0/16' });
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, trustProxy: config.TRUST_PROXY });
    await app.register(errorEnvelopePlugin);
    await app.register(rateLimitPlugin, { config, namespace: `rltest${randomBytes(4).toString('hex')}`, logger });
    app.get('/thing', async () => ({ ok: true }));
    apps.push(app);
    const viaIngress = (buyer: string) => hit(app, '10.9.0.5', { 'x-forwarded-for': buyer });
    expect((await viaIngress('198.51.100.1')).statusCode).toBe(200);
    expect((await viaIngress('198.51.100.2')).statusCode).toBe(200);
    expect((await viaIngress('198.51.100.1')).statusCode).toBe(429);
    // From an untrusted peer the header is not believed: the peer itself is the client.
    expect((await hit(app, '10.10.0.5', { 'x-forwarded-for': '198.51.100.3' })).statusCode).toBe(200);
    expect((await hit(app, '10.10.0.5', { 'x-forwarded-for': '198.51.100.4' })).statusCode).toBe(429);
    expect(lines.some((l) => String(l.msg).includes('TRUST_PROXY is not set'))).toBe(false);
  });

  it('fails open with a warning when Redis is unreachable', async () => {
    const { app, lines } = await build({ RATE_LIMIT_PER_MINUTE: '1', REDIS_URL: 'redis://127.0.0.1:1' });
    for (let i = 0; i < 4; i++) expect((await hit(app)).statusCode).toBe(200);
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('requests are not being limited'))).toBe(true);
  });
});
