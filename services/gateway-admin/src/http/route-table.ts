import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z, ZodTypeAny } from 'zod';
import type { Principal } from '../domain/principal';
import type { Role, Scope } from '../domain/scopes';
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

/** One row of the Admin route table: drives enforcement, validation and the OpenAPI document. */
export interface RouteDef<B extends ZodTypeAny | undefined, Q extends ZodTypeAny | undefined, P extends ZodTypeAny | undefined> {
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
  /** Status of a successful answer; default 200. */
  status?: number;
  handler(ctx: RouteContext<Infer<B>, Infer<Q>, Infer<P>>): Promise<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

/** Identity function that keeps the handler's context typed from the schemas. */
export function route<
  B extends ZodTypeAny | undefined = undefined,
  Q extends ZodTypeAny | undefined = undefined,
  P extends ZodTypeAny | undefined = undefined,
>(def: RouteDef<B, Q, P>): AnyRoute {
  return def;
}
