import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../../test/support/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ConflictError, SecretBox, UnavailableError, ValidationError } from '@paymesh/core';
import { errorEnvelopePlugin } from '../errors';
import { requestContextPlugin } from '../request-context';
import { openApiTransform, type OpenApiTransformInput } from '../openapi';
import { documentIdempotency } from './openapi';
import { idempotencyPlugin } from './plugin';
import { MemoryIdempotencyCollection } from './memory';
import { IdempotencyRecords } from './records';

let app: FastifyInstance;
const collection = new MemoryIdempotencyCollection();
let runs = 0;
/** Lets a test hold the handler until it says so. */
let gate: Promise<void> = Promise.resolve();
let failNext: Error | undefined;

beforeAll(async () => {
  app = Fastify();
  await app.register(requestContextPlugin);
  await app.register(errorEnvelopePlugin);
  await app.register(idempotencyPlugin, {
    records: new IdempotencyRecords({
      collection,
      sealer: new SecretBox(`k1:${randomBytes(32).toString('base64')}`),
      waitMs: 2_000,
    }),
    operations: new Set(['createThing']),
    scopeOf: (req) => {
      const caller = req.headers['x-caller'];
      if (typeof caller !== 'string') throw new ValidationError('x-caller is required');
      return `caller:${caller}`;
    },
    purgeEveryMs: 0,
  });
  app.post('/things', { schema: { operationId: 'createThing' } }, async (req, reply) => {
    await gate;
    runs++;
    if (failNext) {
      const err = failNext;
      failNext = undefined;
      throw err;
    }
    return reply.code(201).send({ id: `thing-${runs}`, body: req.body });
  });
  app.post('/other', { schema: { operationId: 'otherThing' } }, async () => ({ runs: ++runs }));
  await app.ready();
});

afterAll(() => app?.close());

/** Resolves once a request holds a pending claim of `key`. */
async function claimed(key: string): Promise<void> {
  await waitFor(() => [...collection.docs.values()].some((d) => d.key === key && d.state === 'pending'), {
    timeoutMs: 5_000,
    stepMs: 2,
    what: `a pending claim of ${key}`,
  });
}

const post = (url: string, body: unknown, key?: string, caller = 'a') =>
  app.inject({
    method: 'POST',
    url,
    payload: body as object,
    headers: { 'x-caller': caller, ...(key !== undefined ? { 'idempotency-key': key } : {}) },
  });

describe('the Idempotency-Key plugin', () => {
  it('runs a request once per key and replays its status and body with Idempotent-Replayed', async () => {
    const before = runs;
    const first = await post('/things', { n: 1, m: 2 }, 'replay-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/things', { m: 2, n: 1 }, 'replay-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(runs).toBe(before + 1);
  });

  it('lets concurrent requests with one key run the handler once; all get its answer', async () => {
    const before = runs;
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const racing = Array.from({ length: 3 }, () => post('/things', { n: 2 }, 'race-1'));
    await claimed('race-1');
    open();
    const answers = await Promise.all(racing);
    expect(runs).toBe(before + 1);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201]);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
  });

  it('refuses the key for another body with 409 IDEMPOTENCY_KEY_REUSED, and runs nothing', async () => {
    await post('/things', { n: 3 }, 'reuse-1');
    const before = runs;
    const other = await post('/things', { n: 4 }, 'reuse-1');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      error: expect.stringMatching(/Idempotency-Key/),
    });
    expect(runs).toBe(before);
  });

  it('keeps keys apart per caller', async () => {
    const a = await post('/things', { n: 5 }, 'shared-key', 'a');
    const b = await post('/things', { n: 5 }, 'shared-key', 'b');
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().id).not.toBe(a.json().id);
  });

  it('refuses a malformed key with 400 before anything runs; ignores the header on other routes', async () => {
    const before = runs;
    for (const key of ['k'.repeat(256), 'schlüssel', '']) {
      const res = await post('/things', { n: 6 }, key);
      expect(res.statusCode, key).toBe(400);
      expect(res.json().error).toMatch(/idempotency-key/);
    }
    expect(runs).toBe(before);
    expect((await post('/other', {}, 'k'.repeat(300))).statusCode).toBe(200);
    expect((await post('/other', {}, 'same')).json()).not.toEqual((await post('/other', {}, 'same')).json());
  });

  it('does not consume the key when the scope cannot be told (400)', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/things',
      payload: { n: 7 },
      headers: { 'idempotency-key': 'no-caller' },
    });
    expect(res.statusCode).toBe(400);
    expect((await post('/things', { n: 8 }, 'no-caller')).statusCode).toBe(201);
  });

  it('keeps a final refusal (409) but neither a validation failure (400) nor a server error (5xx)', async () => {
    failNext = new ConflictError('taken', { code: 'CHECKOUT_EXPIRED' });
    const conflict = await post('/things', { n: 9 }, 'refused-1');
    expect(conflict.statusCode).toBe(409);
    const replayed = await post('/things', { n: 9 }, 'refused-1');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(conflict.body);

    failNext = new ValidationError('body.n: too small');
    expect((await post('/things', { n: 10 }, 'invalid-1')).statusCode).toBe(400);
    // Corrected body, same key: runs.
    expect((await post('/things', { n: 11 }, 'invalid-1')).statusCode).toBe(201);

    failNext = new UnavailableError('payments down', { code: 'PAYMENTS_UNAVAILABLE' });
    expect((await post('/things', { n: 12 }, 'flaky-1')).statusCode).toBe(503);
    const retried = await post('/things', { n: 12 }, 'flaky-1');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After when the first request outlasts the wait', async () => {
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const first = post('/things', { n: 13 }, 'slow-1');
    await claimed('slow-1');
    const second = await post('/things', { n: 13 }, 'slow-1');
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(second.headers['retry-after']).toBe('1');
    open();
    expect((await first).statusCode).toBe(201);
    expect((await post('/things', { n: 13 }, 'slow-1')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('the cleanup of expired keys', () => {
  it('runs on a timer from ready to close, also when registered in a route scope', async () => {
    const records = new IdempotencyRecords({
      collection: new MemoryIdempotencyCollection(),
      sealer: new SecretBox(`k1:${randomBytes(32).toString('base64')}`),
    });
    let purges = 0;
    records.purgeExpired = async () => {
      purges++;
      return 0;
    };
    const scoped = Fastify();
    await scoped.register(async (scope) => {
      await scope.register(idempotencyPlugin, {
        records,
        operations: new Set<string>(),
        scopeOf: () => 'x',
        purgeEveryMs: 5,
      });
    });
    await scoped.ready();
    await waitFor(() => purges >= 2, { timeoutMs: 5_000, stepMs: 5, what: 'two purges' });
    expect(purges).toBeGreaterThanOrEqual(2);
    await scoped.close();
  });
});

describe('the OpenAPI description of Idempotency-Key', () => {
  const transform = documentIdempotency(openApiTransform({}), new Set(['createThing']), 'per caller');
  const input = (operationId: string): OpenApiTransformInput => ({
    schema: { operationId, response: { 201: z.object({ id: z.string() }), 409: z.object({ error: z.string() }) } },
    url: '/things',
  });

  it('adds the optional header parameter and the replay header of the success answer to keyed operations only', () => {
    const out = transform(input('createThing')).schema as {
      headers: { properties: Record<string, { maxLength: number; description: string }>; required?: string[] };
      response: Record<string, { headers: Record<string, unknown> }>;
    };
    expect(out.headers.properties['idempotency-key']?.maxLength).toBe(255);
    expect(out.headers.properties['idempotency-key']?.description).toMatch(/per caller/);
    expect(out.headers.required ?? []).not.toContain('idempotency-key');
    expect(Object.keys(out.response['201']!.headers)).toEqual(['X-Request-ID', 'Idempotent-Replayed']);
    expect(Object.keys(out.response['409']!.headers)).toEqual(['X-Request-ID']);
    expect((transform(input('otherThing')).schema as { headers?: unknown }).headers).toBeUndefined();
  });
});
