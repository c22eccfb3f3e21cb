import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z, type ZodTypeAny } from 'zod';
import type { Principal } from '../domain/principal';
import { isScope, type Role, type Scope, type ScopeFamily } from '../domain/scopes';
import type { AdminDeps } from '../app/deps';
import type { KeyMode } from '../domain/api-key';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route:
 * - `organization`: an organization key, a system key naming the organization in X-Organization-ID,
 *   or a dashboard user of that organization;
 * - `system`: system keys only (global administration).
 */
export type Audience = 'organization' | 'system';

/** The organization a request acts on and the data mode (live or test) of the caller. */
export interface OrgScope {
  organizationId: string;
  mode: KeyMode;
}

type Infer<S> = S extends ZodTypeAny ? z.infer<S> : undefined;
/** What a handler returns: the input of the response schema (the schema strips and checks it on the way out), nothing for 204. */
type Answer<R> = R extends ZodTypeAny ? z.input<R> : void | undefined;

/**
 * Error statuses a route may answer beyond those every route documents (400, 401, 403, 429, and
 * 404 where an organization or an ID in the path is resolved); 503 where a coded outage of another
 * service is part of the contract (TAX_UNAVAILABLE).
 */
export type ErrorStatus = 409 | 422 | 503;

/**
 * The answer of a file route: the bytes (or, for large files, a stream of them sent as it is read:
 * `stream`, a readable of Buffers), the name they are offered under (sent as
 * `Content-Disposition: inline; filename="<filename>"`) and the row's documented headers.
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
});
export type FileAnswer = z.input<typeof fileAnswer>;

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
    readonly status: ErrorStatus,
    readonly body: { error: string } & Record<string, unknown>,
  ) {}
}

/** A route whose success answer is a file rather than JSON. */
export interface FileResponse {
  /** Media type of the file, e.g. application/pdf. */
  contentType: string;
  /** Headers the answer carries beyond X-Request-ID and Content-Disposition: name -> description (documented). */
  headers?: Record<string, string>;
}

export interface RouteContext<B, Q, P> {
  deps: AdminDeps;
  principal: Principal;
  /** Set for `organization` routes. */
  org: OrgScope;
  body: B;
  query: Q;
  params: P;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** One row of the Admin route table: drives enforcement, validation, the OpenAPI document and the response checks. */
export interface RouteDef<
  B extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  P extends ZodTypeAny | undefined,
  R extends ZodTypeAny | null = ZodTypeAny | null,
> {
  method: HttpMethod;
  /** Path under /api/v1, fastify syntax (`/sites/:id`). */
  path: string;
  scope: Scope;
  role: Role;
  audience: Audience;
  tag: string;
  summary: string;
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
  /** Stable, unique, camelCase name of the operation: the OpenAPI operationId and the generated clients' method name. */
  operationId: string;
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
  /** Error statuses this route answers beyond the common ones (409 for conflicts, 422 for failed preconditions). */
  errors?: ErrorStatus[];
  /** The request body is a file of this media type instead of JSON (`body` stays unset; the handler gets a Buffer). */
  upload?: FileUpload;
  /** Error statuses (among `errors`) whose body extends the envelope: the schema documents and checks it (see ErrorAnswer). */
  errorBodies?: Partial<Record<ErrorStatus, ZodTypeAny>>;
  handler(ctx: RouteContext<Infer<B>, Infer<Q>, Infer<P>>): Promise<Answer<R>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any, any>;

/** Identity function that keeps the handler's context and answer typed from the schemas. */
export function route<
  B extends ZodTypeAny | undefined = undefined,
  Q extends ZodTypeAny | undefined = undefined,
  P extends ZodTypeAny | undefined = undefined,
  R extends ZodTypeAny | null = null,
>(def: RouteDef<B, Q, P, R>): AnyRoute {
  return def;
}

/** Success status of a row: explicit, else 204 without a response body, else 200. */
export function successStatus(def: AnyRoute): number {
  return def.status ?? (def.response === null ? 204 : 200);
}

type Action = 'read' | 'create' | 'update' | 'delete' | 'execute';

/** The scope action a method implies: reads read, POST creates, PUT/PATCH update, DELETE deletes. */
const ACTION_OF: Readonly<Record<HttpMethod, Action>> = {
  GET: 'read',
  POST: 'create',
  PUT: 'update',
  PATCH: 'update',
  DELETE: 'delete',
};
/** The spec's default minimum roles: Viewers read, Editors write, Admins delete. */
const ROLE_OF: Readonly<Record<HttpMethod, Role>> = {
  GET: 'Viewer',
  POST: 'Editor',
  PUT: 'Editor',
  PATCH: 'Editor',
  DELETE: 'Admin',
};

export interface ResourceDefaults {
  tag: string;
  /** Scope family: a row's scope is `<family>:<action>`, the action implied by the method unless the row names one. */
  scopePrefix: ScopeFamily;
  /** Default `organization`. */
  audience?: Audience;
  /** Minimum role of every write (POST, PUT, PATCH, DELETE) where the spec asks more than the method implies (providers, domains: Admin). */
  writeRole?: Role;
}

/** A row of a resource: method, path, summary, operationId, schemas and handler; the rest comes from the resource. */
export type ResourceRow<
  B extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  P extends ZodTypeAny | undefined,
  R extends ZodTypeAny | null,
> = Omit<RouteDef<B, Q, P, R>, 'scope' | 'role' | 'audience' | 'tag'> & {
  /** Scope action when the method's is not the one (a POST that executes, a GET that executes). */
  action?: Action;
  role?: Role;
};

/**
 * Rows of one resource with its defaults: scope from the method (or `action`), role from the
 * method (or the resource's `writeRole`, or the row's `role`), 201 for a create, 204 without a body.
 * `const sites = resource({ tag: 'Sites', scopePrefix: 'site' })`, then `sites({ method, path, ... })`.
 */
export function resource(defaults: ResourceDefaults) {
  return function row<
    B extends ZodTypeAny | undefined = undefined,
    Q extends ZodTypeAny | undefined = undefined,
    P extends ZodTypeAny | undefined = undefined,
    R extends ZodTypeAny | null = null,
  >(def: ResourceRow<B, Q, P, R>): AnyRoute {
    const { action, role, ...rest } = def;
    const scope = `${defaults.scopePrefix}:${action ?? ACTION_OF[def.method]}`;
    // A family without that action (domain:update) is a mistake in the table: fail at start-up, not at request time.
    if (!isScope(scope)) throw new Error(`${def.method} ${def.path}: ${scope} is not a scope of the specification`);
    const derivedRole = def.method === 'GET' ? ROLE_OF.GET : (defaults.writeRole ?? ROLE_OF[def.method]);
    const created = scope.endsWith(':create') && def.response !== null;
    return {
      ...rest,
      scope,
      role: role ?? derivedRole,
      audience: defaults.audience ?? 'organization',
      tag: defaults.tag,
      // 204 without a body and 200 otherwise come from successStatus(); a create answers 201.
      ...(def.status === undefined && created ? { status: 201 } : {}),
    };
  };
}
