import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForbiddenError, UnauthenticatedError } from '@paymesh/core';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { errorEnvelopePlugin } from './errors';
import { requestContextPlugin } from './request-context';
import { openApiFiles, type OpenApiTransform } from './openapi';
import {
  ErrorAnswer,
  fileAnswer,
  registerRows,
  responseSchemas,
  row,
  rowDescription,
  rowErrorStatuses,
  type Guard,
  type RegisterRowsOptions,
  type Row,
} from './route-table';

interface Deps {
  token: string;
}
interface Meta {
  level?: 'low' | 'high';
}

/** Credentials: a bearer token equal to the deps' one, checked before the body is read. */
const bearer: Guard<Deps, { user: string }, Meta> = {
  at: 'request',
  security: [{ bearerAuth: [] }],
  caller(deps, req) {
    if (req.headers.authorization !== `Bearer ${deps.token}`) throw new UnauthenticatedError('who are you?');
    return { user: 'ann' };
  },
  describe: (r) => `Level ${r.level ?? 'low'}.`,
  errors: () => [401, 429],
};
/** A check in the handler, before the input: a refused Origin wins over bad input. */
const origin: Guard<Deps, { origin: string }, Meta> = {
  at: 'handler',
  security: [],
  caller(_deps, req) {
    if (req.headers.origin === 'null') throw new ForbiddenError('origin not allowed');
    return { origin: req.headers.origin ?? '' };
  },
};

const testRow = row<Deps, Meta>();
const thing = z.object({ id: z.string(), name: z.string() });
const rows: Row<Deps, Meta>[] = [
  testRow({
    guard: bearer,
    level: 'high',
    tag: 'Things',
    method: 'POST',
    path: '/things/:id',
    operationId: 'createThing',
    summary: 'create',
    description: 'Names a thing.',
    params: z.object({ id: z.string().max(5) }),
    body: z.object({ name: z.string().min(1) }).strict(),
    status: 201,
    response: thing,
    errors: [409],
    // The extra field is stripped by the response schema; the caller's user is in the context.
    handler: async ({ params, body, user, deps }) => ({
      id: params.id,
      name: `${body.name}/${user}/${deps.token}`,
      extra: 1,
    }),
  }),
  testRow({
    guard: origin,
    tag: 'Things',
    method: 'POST',
    path: '/things/:id/rename',
    operationId: 'renameThing',
    summary: 'rename',
    params: z.object({ id: z.string().max(5) }),
    query: z.object({ dry: z.coerce.boolean().default(false) }),
    body: z.object({ name: z.string().min(1).default('unnamed') }),
    response: thing.extend({ origin: z.string(), dry: z.boolean() }),
    handler: async ({ params, body, query, origin }) => ({ id: params.id, name: body.name, origin, dry: query.dry }),
  }),
  testRow({
    guard: origin,
    tag: 'Things',
    method: 'DELETE',
    path: '/things/:id',
    operationId: 'deleteThing',
    summary: 'delete',
    response: null,
    handler: async ({ req }) => {
      if ((req.params as { id: string }).id === 'held') throw new ErrorAnswer(409, { error: 'held', holds: ['a'] });
    },
  }),
  testRow({
    guard: origin,
    tag: 'Files',
    method: 'GET',
    path: '/things/:id/file',
    operationId: 'thingFile',
    summary: 'file',
    response: fileAnswer,
    file: { contentType: 'application/pdf', headers: { 'x-pages': 'pages in the file' } },
    handler: async () => ({
      bytes: Buffer.from('%PDF'),
      filename: 'a.pdf',
      headers: { 'x-pages': '1' },
      contentType: 'application/x-pdf',
    }),
  }),
];

async function app(input: RegisterRowsOptions<Deps>['input']): Promise<FastifyInstance> {
  const f = Fastify();
  f.setValidatorCompiler(validatorCompiler);
  f.setSerializerCompiler(serializerCompiler);
  await f.register(requestContextPlugin);
  await f.register(errorEnvelopePlugin);
  registerRows(f, rows, { deps: { token: 't0ken' }, input });
  return f;
}

/** A create as the signed-in caller. */
const create = (f: FastifyInstance, id: string, payload: object) =>
  f.inject({ method: 'POST', url: `/things/${id}`, headers: { authorization: 'Bearer t0ken' }, payload });

describe('registerRows', () => {
  it('runs a request guard before the body is read: no credentials is a 401 whatever the body', async () => {
    for (const input of ['schema', 'handler'] as const) {
      const f = await app(input);
      const res = await f.inject({ method: 'POST', url: '/things/abc', payload: { name: '' } });
      expect(res.statusCode, input).toBe(401);
      const bad = await f.inject({
        method: 'POST',
        url: '/things/abc',
        headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
        payload: '{not json',
      });
      expect(bad.statusCode, input).toBe(401);
    }
  });

  it('hands the handler the caller, the deps and the checked input, and answers through the response schema', async () => {
    for (const input of ['schema', 'handler'] as const) {
      const f = await app(input);
      const res = await create(f, 'abc', { name: 'box' });
      expect(res.statusCode, input).toBe(201);
      expect(res.json()).toEqual({ id: 'abc', name: 'box/ann/t0ken' });
    }
  });

  it('names the offending field of bad input in both modes', async () => {
    for (const input of ['schema', 'handler'] as const) {
      const f = await app(input);
      const res = await create(f, 'abc', { name: 'box', color: 'red' });
      expect(res.statusCode, input).toBe(400);
      expect(res.json().error, input).toMatch(/^body/);
      const params = await create(f, 'abcdefg', { name: 'box' });
      expect(params.statusCode, input).toBe(400);
      expect(params.json().error, input).toMatch(/^params\.id: /);
    }
  });

  it('checks the input after a handler guard in handler mode: a refused Origin wins over bad input', async () => {
    const f = await app('handler');
    const refused = await f.inject({
      method: 'POST',
      url: '/things/abcdefg/rename',
      headers: { origin: 'null' },
      payload: { name: '' },
    });
    expect(refused.statusCode).toBe(403);
    const bad = await f.inject({ method: 'POST', url: '/things/abcdefg/rename', payload: { name: 'x' } });
    expect(bad.json()).toEqual({ error: expect.stringMatching(/^params\.id: /) });
  });

  it('reads an absent body, query or params as {} in handler mode (schema defaults apply)', async () => {
    const f = await app('handler');
    const res = await f.inject({ method: 'POST', url: '/things/ab/rename', headers: { origin: 'https://a.test' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'ab', name: 'unnamed', origin: 'https://a.test', dry: false });
  });

  it('answers 204 without a body, and an ErrorAnswer with its own body', async () => {
    const f = await app('handler');
    const gone = await f.inject({ method: 'DELETE', url: '/things/x' });
    expect([gone.statusCode, gone.body]).toEqual([204, '']);
    const held = await f.inject({ method: 'DELETE', url: '/things/held' });
    expect([held.statusCode, held.json()]).toEqual([409, { error: 'held', holds: ['a'] }]);
  });

  it('sends a file answer as bytes, inline under its name, with its headers and media type', async () => {
    const f = await app('handler');
    const res = await f.inject({ method: 'GET', url: '/things/x/file' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-pdf');
    expect(res.headers['content-disposition']).toBe('inline; filename="a.pdf"');
    expect(res.headers['x-pages']).toBe('1');
    expect(res.body).toBe('%PDF');
  });

  it('documents each row: guard security and description, error statuses, hidden when asked', async () => {
    const f = Fastify();
    f.setValidatorCompiler(validatorCompiler);
    f.setSerializerCompiler(serializerCompiler);
    const seen: Record<string, unknown>[] = [];
    f.addHook('onRoute', (r) => {
      seen.push({ url: r.url, ...(r.schema as object), config: r.config });
    });
    registerRows(f, rows.slice(0, 2), { deps: { token: 't' }, input: 'schema', hidden: true });
    const [create, rename] = seen;
    expect(create).toMatchObject({
      hide: true,
      tags: ['Things'],
      operationId: 'createThing',
      description: 'Level high. Names a thing.',
      security: [{ bearerAuth: [] }],
    });
    expect(Object.keys((create as { response: object }).response)).toEqual(['201', '401', '409', '429']);
    expect(rename).toMatchObject({ security: [] });
    expect(rename).not.toHaveProperty('description');
  });
});

describe('row documentation helpers', () => {
  const [create, rename, del] = rows as [Row<Deps, Meta>, Row<Deps, Meta>, Row<Deps, Meta>];
  it('joins what the guard and the row say, and their error statuses in order', () => {
    expect(rowDescription(create)).toBe('Level high. Names a thing.');
    expect(rowDescription(rename)).toBeUndefined();
    expect(rowErrorStatuses(create)).toEqual([401, 409, 429]);
  });

  it('refuses a 204 with a body and a body-less answer that is not a 204', () => {
    expect(Object.keys(responseSchemas(del, [400]))).toEqual(['204', '400']);
    expect(() => responseSchemas({ ...del, status: 200 }, [])).toThrow(/204/);
    expect(() => responseSchemas({ ...create, status: 204 }, [])).toThrow(/204/);
  });

  it('documents a file answer and a file upload as binary of their media types', () => {
    const plain: OpenApiTransform = (input) => ({ schema: input.schema, url: input.url });
    const transform = openApiFiles(plain);
    // What @fastify/swagger hands a transform: the route besides its schema and URL.
    const input = {
      url: '/x',
      schema: { response: { 200: { headers: { 'X-Request-ID': { type: 'string' } } }, 400: {} } },
      route: {
        config: {
          file: { contentType: 'application/pdf', headers: { 'x-pages': 'pages' } },
          upload: { contentType: 'text/csv', maxBytes: 10, description: 'rows' },
        },
      },
    };
    const out = transform(input) as { schema: Record<string, unknown> };
    expect(out.schema.consumes).toEqual(['text/csv']);
    expect(out.schema.body).toEqual({ type: 'string', format: 'binary', description: 'rows (at most 10 bytes)' });
    const response = out.schema.response as Record<string, Record<string, unknown>>;
    expect(response['200']).toEqual({
      'x-response-description': 'The file (application/pdf)',
      content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
      headers: {
        'X-Request-ID': { type: 'string' },
        'Content-Disposition': { type: 'string', description: 'inline; filename="<file name>"' },
        'x-pages': { type: 'string', description: 'pages' },
      },
    });
    expect(response['400']).toEqual({});
  });
});
