import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '@paymesh/core';
import { errorEnvelopePlugin, frameworkErrorHandler } from './errors';
import { inputGuardPlugin } from './input-guard';
import { genRequestId, requestContextPlugin } from './request-context';

/** A gateway-shaped app (the shared plugins in the gateways' order) with one echoing route. */
async function app() {
  const f = Fastify({ genReqId: genRequestId, frameworkErrors: frameworkErrorHandler, bodyLimit: 1000 });
  await f.register(requestContextPlugin);
  await f.register(errorEnvelopePlugin);
  await f.register(inputGuardPlugin);
  const body = z.object({ name: z.string() }).strict();
  f.post('/things/:id', async (req) => {
    const parsed = body.safeParse(req.body);
    if (!parsed.success) throw new ValidationError('body invalid');
    return { id: (req.params as { id: string }).id, name: parsed.data.name };
  });
  f.get('/things/:id', async (req) => ({ id: (req.params as { id: string }).id }));
  f.get('/boom', async () => {
    throw new Error('connect ECONNREFUSED 10.1.2.3:5432');
  });
  return f;
}

function expectEnvelope(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['x-request-id']).toBeTruthy();
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(typeof body.error).toBe('string');
  expect(Object.keys(body).every((k) => ['error', 'code', 'requestId'].includes(k))).toBe(true);
  expect(res.body).not.toMatch(/FST_ERR/);
  return body;
}

describe('framework errors and guarded input in the envelope', () => {
  it('answers a bad URL and an over-long parameter with the envelope and the request ID', async () => {
    const f = await app();
    const bad = await f.inject({ method: 'GET', url: '/things/%FF', headers: { 'x-request-id': 'probe-0000001' } });
    expectEnvelope(bad, 400);
    expect(bad.headers['x-request-id']).toBe('probe-0000001');
    expectEnvelope(await f.inject({ method: 'GET', url: `/things/${'a'.repeat(150)}` }), 414);
    expectEnvelope(await f.inject({ method: 'GET', url: '/nowhere' }), 404);
  });

  it('answers parser errors with the envelope', async () => {
    const f = await app();
    const post = (payload: string, type = 'application/json') =>
      f.inject({ method: 'POST', url: '/things/1', headers: { 'content-type': type }, payload });
    expect(expectEnvelope(await post('{"name":'), 400).error).toMatch(/JSON/);
    expect(expectEnvelope(await post(''), 400).error).toMatch(/empty/);
    expectEnvelope(await post(`{"name":"${'x'.repeat(2000)}"}`), 413);
    expectEnvelope(await post('name=x', 'text/plain'), 415);
    expectEnvelope(await post('{"__proto__":{"a":1}}'), 400);
    expect(JSON.parse((await post('{"name":"ok"}')).body)).toEqual({ id: '1', name: 'ok' });
  });

  it('refuses deep JSON, NUL, unpaired surrogates, Infinity and broken query encoding before the handler', async () => {
    const f = await app();
    const post = (payload: string) =>
      f.inject({ method: 'POST', url: '/things/1', headers: { 'content-type': 'application/json' }, payload });
    expect(expectEnvelope(await post('{"a":'.repeat(33) + '1' + '}'.repeat(33)), 400).error).toMatch(
      /nested deeper than 32/,
    );
    expect(expectEnvelope(await post('{"name":"a\\u0000"}'), 400).error).toMatch(/^body\.name: must not contain NUL/);
    expect(expectEnvelope(await post('{"name":"\\ud800"}'), 400).error).toMatch(/^body\.name/);
    expect(expectEnvelope(await post('{"n":1e400}'), 400).error).toMatch(/^body\.n: number out of range/);
    expect(expectEnvelope(await f.inject({ method: 'GET', url: '/things/%00' }), 400).error).toMatch(/^params\.id/);
    expect(expectEnvelope(await f.inject({ method: 'GET', url: '/things/1?q=%00' }), 400).error).toMatch(
      /^querystring\.q/,
    );
    expect(expectEnvelope(await f.inject({ method: 'GET', url: '/things/1?q=%ED%A0%80' }), 400).error).toMatch(
      /percent-encoded/,
    );
    expect((await f.inject({ method: 'GET', url: '/things/%F0%9F%98%80' })).statusCode).toBe(200);
  });

  it('hides internal errors behind "internal error" with the request ID', async () => {
    const f = await app();
    const res = await f.inject({ method: 'GET', url: '/boom', headers: { 'x-request-id': 'probe-0000002' } });
    expect(expectEnvelope(res, 500)).toEqual({ error: 'internal error', requestId: 'probe-0000002' });
  });
});
