import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainsOverLimitBody, errorEnvelopePlugin, frameworkErrorHandler, OVER_LIMIT_DRAIN_BYTES } from './errors';
import { genRequestId, requestContextPlugin } from './request-context';

describe('a body over the limit, sent over a real connection', () => {
  const app = Fastify({ genReqId: genRequestId, frameworkErrors: frameworkErrorHandler, bodyLimit: 1024 });
  let base = '';

  beforeAll(async () => {
    await app.register(requestContextPlugin);
    await app.register(errorEnvelopePlugin);
    app.addContentTypeParser('text/csv', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    app.post('/upload', async (req) => ({ bytes: (req.body as Buffer).length }));
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('is answered 413 in the envelope while the client is still sending, and the connection stays usable', async () => {
    // Several MiB: the client is still writing when the answer leaves, as with an upload just over a limit.
    const big = Buffer.alloc(8 * 1024 * 1024, 'a');
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/upload`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: big });
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).not.toBe('close');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({ error: 'request body is too large' });
    }
    const ok = await fetch(`${base}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'a,b\n',
    });
    expect(await ok.json()).toEqual({ bytes: 4 });
  });

  it('reads and drops a declared rest up to the drain limit; a larger or undeclared one closes the connection', () => {
    expect(drainsOverLimitBody('2048')).toBe(true);
    expect(drainsOverLimitBody(String(OVER_LIMIT_DRAIN_BYTES))).toBe(true);
    expect(drainsOverLimitBody(String(OVER_LIMIT_DRAIN_BYTES + 1))).toBe(false);
    expect(drainsOverLimitBody(undefined)).toBe(false);
    expect(drainsOverLimitBody('1e9')).toBe(false);
  });
});
