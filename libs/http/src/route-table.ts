import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z, type ZodTypeAny } from 'zod';
import { ValidationError } from '@paymesh/core';
import { describeIssues } from './errors';
import { errorResponses, noContent } from './openapi';

/**
 * The route table of a gateway: one row per route drives who may call it (its guard), how its
 * input is checked, what it answers (checked and serialized through the response schema), and its
 * OpenAPI operation. A gateway brings its guards (how its callers are known) and its rows; this
 * kit registers them the same way in both gateways.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One OpenAPI security requirement: scheme name -> scopes (empty); `{}` stands for "no credentials". */
export type SecurityRequirement = Record<string, string[]>;

type Infer<S> = S extends ZodTypeAny ? z.infer<S> : undefined;
/** What a handler returns: the input of the response schema (the schema strips and checks it on the way out), nothing for 204. */
type Answer<R> = R extends ZodTypeAny ? z.input<R> : void | undefined;

/**
 * The answer of a file route: the bytes (or, for large files, a stream of them sent as it is read:
 * `stream`, a readable of Buffers), the name they are offered under (sent as
 * `Content-Disposition: inline; filename="<filename>"`), the headers it carries beyond those, and
 * its media type when it is not the row's.
 */
export const fileAnswer = z.object({
  bytes: z.instanceof(Buffer).optional(),
  stream: z.instanceof(Readable).optional(),
  filename: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^"\\/\r\n]+$/, 'must be a file name without quotes, slashes or line breaks'),
  headers: z.record(z.string()).default({}),
  contentType: z.string().min(1).optional(),
});
export type FileAnswer = z.input<typeof fileAnswer>;

/** A route whose success answer is a file rather than JSON. */
export interface FileResponse {
  /** Media type of the file, e.g. application/pdf. */
  contentType: string;
  /** Headers the answer carries beyond X-Request-ID and Content-Disposition: name -> description (documented). */
  headers?: Record<string, string>;
}

/** A route whose request body is a file (not JSON): its media type and largest size, read as a Buffer. */
export interface FileUpload {
  contentType: string;
  maxBytes: number;
  /** What the file holds (documented as the request body). */
  description: string;
}

/**
 * An error answer with a body beyond the envelope (the row errors of a refused import): a handler
 * throws it, the route answers `body` with `status`, checked by the row's `errorBodies` schema.
 */
export class ErrorAnswer {
  constructor(
    readonly status: number,
    readonly body: { error: string } & Record<string, unknown>,
  ) {}
}

/**
 * How the caller of a row is known, and what the handler learns about it (`C`, spread into the
 * handler's context). `at`: when it runs.
 * - `request`: the route's onRequest hook, before the body is read and validated: credentials (an
 *   unauthenticated caller learns nothing about the payload rules, and a file upload is not read);
 * - `handler`: first thing in the handler, after the body was read and before the input is checked
 *   (a refusal that wins over bad input but not over an unreadable body, e.g. the Origin check).
 */
export interface Guard<D, C extends object, M = unknown> {
  at: 'request' | 'handler';
  /** OpenAPI security requirements of the rows it guards (`[]`: none). */
  security: readonly SecurityRequirement[];
  /** The caller, or a 401/403 (or 400 for an unusable credential hint). */
  caller(deps: D, req: FastifyRequest, row: Row<D, M>): C | Promise<C>;
  /** What the row's description says about its callers (before the row's own description). */
  describe?(row: Row<D, M>): string | undefined;
  /** Error statuses the guard answers on every row it guards (documented besides the row's `errors`). */
  errors?(row: Row<D, M>): readonly number[];
}

/** The handler's context: the guard's answer, the gateway's dependencies and the checked input. */
export type RouteContext<D, C, B, Q, P> = C & {
  deps: D;
  body: B;
  query: Q;
  params: P;
  req: FastifyRequest;
  reply: FastifyReply;
};

/** The fields every row has, whatever the gateway. */
export interface RowFields<
  B extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  P extends ZodTypeAny | undefined,
  R extends ZodTypeAny | null,
> {
  method: HttpMethod;
  /** Path under the prefix the table is mounted at, fastify syntax (`/sites/:id`). */
  path: string;
  tag: string;
  summary: string;
  /** Said after what the guard says about the callers. */
  description?: string;
  /** Stable, unique, camelCase name of the operation: the OpenAPI operationId and the generated clients' method name. */
  operationId: string;
  body?: B;
  query?: Q;
  params?: P;
  /**
   * Request headers the route reads beyond the common ones (names in lower case; the schema must
   * let other headers pass), validated and documented like the body.
   */
  headers?: ZodTypeAny;
  /** Status of a successful answer; default 200 (204 when `response` is null). */
  status?: number;
  /**
   * Body of a successful answer, the single source of truth: documented, and every real answer is
   * checked and serialized through it (a mismatch is a 500, never an undocumented field). null: no content.
   */
  response: R;
  /**
   * The success answer is a file of this media type, not JSON: `response` is {@link fileAnswer} (it
   * checks what the handler answers), the document shows the body as binary of that type.
   */
  file?: FileResponse;
  /** Error statuses this route answers beyond those its guard documents. */
  errors?: readonly number[];
  /** The request body is a file of this media type instead of JSON (`body` stays unset; the handler gets a Buffer). */
  upload?: FileUpload;
  /** Error statuses (among `errors`) whose body extends the envelope: the schema documents and checks it (see ErrorAnswer). */
  errorBodies?: Partial<Record<number, ZodTypeAny>>;
  /** Route config beyond the kit's (the rate limiter's `rateLimit: false`, `rateLimitBudget`). */
  config?: Record<string, unknown>;
}

/** One row of a gateway's table: the common fields, the gateway's own (`M`), its guard and its handler. */
export type RowDef<
  D,
  M,
  C extends object,
  B extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  P extends ZodTypeAny | undefined,
  R extends ZodTypeAny | null,
> = RowFields<B, Q, P, R> &
  M & {
    guard: Guard<D, C, M>;
    handler(ctx: RouteContext<D, C, Infer<B>, Infer<Q>, Infer<P>>): Promise<Answer<R>>;
  };

/** A row of any shape, as the table holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Row<D, M = unknown> = RowDef<D, M, any, any, any, any, any>;

/** Identity function that keeps the handler's context and answer typed from the guard and the schemas. */
export function row<D, M = unknown>() {
  return <
    C extends object,
    B extends ZodTypeAny | undefined = undefined,
    Q extends ZodTypeAny | undefined = undefined,
    P extends ZodTypeAny | undefined = undefined,
    R extends ZodTypeAny | null = null,
  >(
    def: RowDef<D, M, C, B, Q, P, R>,
  ): Row<D, M> => def;
}

/** Success status of a row: explicit, else 204 without a response body, else 200. */
export function successStatus(def: Pick<Row<unknown>, 'status' | 'response'>): number {
  return def.status ?? (def.response === null ? 204 : 200);
}

/** The error statuses a row documents: its guard's and its own, in order. */
export function rowErrorStatuses<D, M>(def: Row<D, M>): number[] {
  return [...new Set([...(def.guard.errors?.(def) ?? []), ...(def.errors ?? [])])].sort((a, b) => a - b);
}

/** Fastify `response` schemas of a row: its success answer and the error statuses it documents. */
export function responseSchemas(
  def: Pick<
    RowFields<undefined, undefined, undefined, ZodTypeAny | null>,
    'method' | 'path' | 'status' | 'response' | 'errorBodies'
  >,
  errorStatuses: readonly number[],
): Record<number, ZodTypeAny> {
  const status = successStatus(def);
  if ((status === 204) !== (def.response === null)) {
    throw new Error(`${def.method} ${def.path}: a 204 answer has no body, and only a 204 answer may have none`);
  }
  return {
    [status]: (def.response as ZodTypeAny | null) ?? noContent,
    ...errorResponses(errorStatuses),
    ...(def.errorBodies as Record<number, ZodTypeAny> | undefined),
  };
}

/** The row's description: what its guard says about the callers, then its own. */
export function rowDescription<D, M>(def: Row<D, M>): string | undefined {
  const parts = [def.guard.describe?.(def), def.description].filter((s): s is string => !!s);
  return parts.length ? parts.join(' ') : undefined;
}

export interface RegisterRowsOptions<D> {
  deps: D;
  /**
   * Who checks the input against the row's schemas:
   * - `schema`: fastify, after the guard's onRequest (messages from the validation items);
   * - `handler`: the kit, in the handler after a `handler` guard (params, query, then body, each
   *   an absent part read as `{}`), so a guard's refusal wins over bad input; the schemas still
   *   document the input.
   */
  input: 'schema' | 'handler';
  /** Served but left out of the OpenAPI document (an alias prefix). */
  hidden?: boolean;
}

/** Validates a request part with a zod schema; 400 naming the offending field otherwise. */
export function parseInput<S extends ZodTypeAny>(
  schema: S,
  value: unknown,
  where: 'body' | 'params' | 'query' = 'body',
): z.infer<S> {
  const res = schema.safeParse(value ?? {});
  if (!res.success) throw new ValidationError(describeIssues(res.error.issues, where));
  return res.data;
}

/** Route option of input checked by the handler: fastify does not validate the same input a second time. */
const NO_VALIDATION = { validatorCompiler: () => (data: unknown) => ({ value: data }) };

const CALLER = Symbol('paymesh.route.caller');
type WithCaller = FastifyRequest & { [CALLER]?: object };

/** Registers the rows on `app` (under whatever prefix `app` is mounted at). */
export function registerRows<D, M>(
  app: FastifyInstance,
  rows: readonly Row<D, M>[],
  opts: RegisterRowsOptions<D>,
): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { deps } = opts;
  for (const def of rows) {
    const status = successStatus(def);
    const description = rowDescription(def);
    const guard = def.guard;
    typed.route({
      method: def.method,
      url: def.path,
      schema: {
        ...(opts.hidden ? { hide: true } : {}),
        tags: [def.tag],
        operationId: def.operationId,
        summary: def.summary,
        ...(description ? { description } : {}),
        security: [...guard.security],
        ...(def.body ? { body: def.body } : {}),
        ...(def.query ? { querystring: def.query } : {}),
        ...(def.params ? { params: def.params } : {}),
        ...(def.headers ? { headers: def.headers } : {}),
        response: responseSchemas(def, rowErrorStatuses(def)),
      },
      // The OpenAPI transform documents a file answer and a file upload from it; a file upload always needs its body.
      config: {
        ...def.config,
        ...(def.file ? { file: def.file } : {}),
        ...(def.upload ? { upload: def.upload, optionalBody: false } : {}),
      },
      // A file upload may be larger than a JSON body.
      ...(def.upload ? { bodyLimit: def.upload.maxBytes } : {}),
      ...(opts.input === 'handler' ? NO_VALIDATION : {}),
      ...(guard.at === 'request'
        ? {
            onRequest: async (req: FastifyRequest) => {
              (req as WithCaller)[CALLER] = await guard.caller(deps, req, def);
            },
          }
        : {}),
      handler: async (req, reply) => {
        const caller = guard.at === 'request' ? (req as WithCaller)[CALLER] : await guard.caller(deps, req, def);
        if (!caller) throw new Error('route reached without its caller');
        if (def.upload && !Buffer.isBuffer(req.body))
          throw new ValidationError(`body: send the file with Content-Type ${def.upload.contentType}`);
        const input =
          opts.input === 'schema'
            ? { params: req.params, query: req.query, body: req.body }
            : {
                params: def.params ? parseInput(def.params, req.params, 'params') : req.params,
                query: def.query ? parseInput(def.query, req.query, 'query') : req.query,
                body: def.body ? parseInput(def.body, req.body) : req.body,
              };
        let result: unknown;
        try {
          result = await def.handler({ ...caller, deps, ...input, req, reply });
        } catch (err) {
          if (err instanceof ErrorAnswer) return reply.status(err.status).send(err.body);
          throw err;
        }
        reply.status(status);
        // 204 has no body; an async handler returning undefined would never answer.
        if (status === 204) return reply.send();
        if (def.file) return sendFile(reply, def.file.contentType, result);
        return result;
      },
    });
  }
}

/**
 * Sends a file route's answer: bytes as they are (never serialized), or a stream piped as it is
 * read (chunked), offered inline under their name.
 */
function sendFile(reply: FastifyReply, contentType: string, answer: unknown): FastifyReply {
  const file = fileAnswer.parse(answer);
  const body = file.stream ?? file.bytes;
  if (!body || (file.stream && file.bytes)) throw new Error('a file answer has bytes or a stream, exactly one');
  for (const [name, value] of Object.entries(file.headers)) reply.header(name, value);
  return reply
    .type(file.contentType ?? contentType)
    .header('content-disposition', `inline; filename="${file.filename}"`)
    .send(body);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a file (documented as binary in the OpenAPI). */
    file?: FileResponse;
    /** The route's body is a file (documented as binary in the OpenAPI). */
    upload?: FileUpload;
  }
}
