import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorEnvelopePlugin, frameworkErrorHandler } from './errors';
import { inputGuardPlugin } from './input-guard';
import { bodyMayBeAbsent, markOptionalBody, openApiOptionalBodies, OPTIONAL_BODY_EXTENSION } from './optional-body';
import { genRequestId, requestContextPlugin } from './request-context';

/** A gateway-shaped app: zod validation, the shared plugins, and one route of each kind. */
async function app() {
  const f = Fastify({ genReqId: genRequestId, frameworkErrors: frameworkErrorHandler });
  f.setValidatorCompiler(validatorCompiler);
  f.setSerializerCompiler(serializerCompiler);
  await f.register(requestContextPlugin);
  await f.register(errorEnvelopePlugin);
  await f.register(inputGuardPlugin);
  f.addHook('onRoute', markOptionalBody);
  const allOptional = z.object({ amount: z.number().int().min(50).optional(), note: z.string().optional() }).strict();
  const required = z.object({ name: z.string() }).strict();
  f.post('/optional', { schema: { body: allOptional } }, async (req) => ({ got: req.body }));
  f.post('/required', { schema: { body: required } }, async (req) => ({ got: req.body }));
  f.post('/none', async (req) => ({ got: req.body ?? 'nothing' }));
  f.post('/upload', { config: { optionalBody: false } }, async () => ({ ok: true }));
  await f.ready();
  return f;
}

const send = (f: Awaited<ReturnType<typeof app>>, url: string, payload?: string, json = payload !== undefined) =>
  f.inject({
    method: 'POST',
    url,
    ...(json ? { headers: { 'content-type': 'application/json' } } : {}),
    ...(payload !== undefined ? { payload } : {}),
  });

describe('optional request bodies', () => {
  it('tells an all-optional body schema from a required one', () => {
    expect(bodyMayBeAbsent(undefined)).toBe(true);
    expect(bodyMayBeAbsent(z.object({ a: z.string().optional() }).strict())).toBe(true);
    expect(bodyMayBeAbsent(z.object({ a: z.string() }))).toBe(false);
  });

  it('takes no body, an empty JSON body, JSON null and {} as {} where every field is optional', async () => {
    const f = await app();
    for (const [payload, json] of [
      [undefined, false],
      ['', true],
      ['  ', true],
      ['null', true],
      ['{}', true],
    ] as const) {
      const res = await send(f, '/optional', payload, json);
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({ got: {} });
    }
    expect((await send(f, '/optional', '{"amount":60}')).json()).toEqual({ got: { amount: 60 } });
    // The fields, when sent, are still checked.
    const bad = await send(f, '/optional', '{"amount":10}');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/amount/);
    expect(bad.headers['x-request-id']).toBeTruthy();
  });

  it('still refuses a missing or empty body where a field is required, in the envelope', async () => {
    const f = await app();
    for (const [payload, json] of [
      [undefined, false],
      ['null', true],
      ['{}', true],
    ] as const) {
      const res = await send(f, '/required', payload, json);
      expect(res.statusCode, String(payload)).toBe(400);
      expect(Object.keys(res.json())).toEqual(['error']);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
    expect((await send(f, '/required', '')).json().error).toMatch(/empty/);
  });

  it('lets a route that reads no body take an empty JSON body, but not an upload', async () => {
    const f = await app();
    expect((await send(f, '/none', '')).statusCode).toBe(200);
    expect((await send(f, '/none')).statusCode).toBe(200);
    expect((await send(f, '/upload', '')).statusCode).toBe(400);
  });

  it('marks the optional body in the route schema, and the document then says it is not required', () => {
    const marked = {
      method: 'POST' as const,
      schema: { body: z.object({ a: z.string().optional() }) } as Record<string, unknown>,
      config: {},
    };
    markOptionalBody(marked);
    expect(marked.config).toEqual({ optionalBody: true });
    expect(marked.schema[OPTIONAL_BODY_EXTENSION]).toBe(true);
    const required = {
      method: 'POST' as const,
      schema: { body: z.object({ a: z.string() }) } as Record<string, unknown>,
      config: {},
    };
    markOptionalBody(required);
    expect(required.config).toEqual({});
    const doc = openApiOptionalBodies({
      paths: {
        '/optional': { post: { [OPTIONAL_BODY_EXTENSION]: true, requestBody: { required: true, content: {} } } },
        '/required': { post: { requestBody: { required: true, content: {} } } },
      },
    });
    expect(doc.paths['/optional'].post).toEqual({ requestBody: { required: false, content: {} } });
    expect(doc.paths['/required'].post.requestBody.required).toBe(true);
  });
});
