import type { ZodTypeAny } from 'zod';
import type { HttpMethod, RowDef } from '@paymesh/http';
import { isScope, type Role, type Scope, type ScopeFamily } from '../domain/scopes';
import type { AdminDeps } from '../app/deps';
import type { KeyMode } from '../domain/api-key';
import type { Principal } from '../domain/principal';

export {
  ErrorAnswer,
  fileAnswer,
  successStatus,
  type FileAnswer,
  type FileResponse,
  type FileUpload,
  type HttpMethod,
} from '@paymesh/http';

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

/**
 * Error statuses a route may answer beyond those every route documents (400, 401, 403, 429, and
 * 404 where an organization or an ID in the path is resolved); 503 where a coded outage of another
 * service is part of the contract (TAX_UNAVAILABLE).
 */
export type ErrorStatus = 409 | 422 | 503;

/** What the Admin API adds to a row of the route table: who may call it. */
export interface AdminMeta {
  scope: Scope;
  role: Role;
  audience: Audience;
  errors?: ErrorStatus[];
}

/** What the handler of an Admin row knows about its caller (`org` is set for `organization` rows). */
export interface AdminCaller {
  principal: Principal;
  org: OrgScope;
}

/**
 * One row of the Admin route table: the kit's row with scope, role and audience. Every row has the
 * same guard (adminGuard, added when the table is served), which enforces them.
 */
export type RouteDef<
  B extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  P extends ZodTypeAny | undefined,
  R extends ZodTypeAny | null = ZodTypeAny | null,
> = Omit<RowDef<AdminDeps, AdminMeta, AdminCaller, B, Q, P, R>, 'guard'>;

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
