import type { Client } from '@grpc/grpc-js';
import type { JsonRpcMap } from '@paymesh/contracts';
import { toWire } from '@paymesh/core';
import { jsonCallerPerClients, type BodyArg, type EnvelopeFields, type JsonMethods } from '@paymesh/grpc';
import type { z, ZodTypeAny } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { Clients } from '../../clients';
import type { Principal } from '../../domain/principal';
import type { OrgScope } from '../route-table';
import { actorOf } from './actor';

/** What a route hands to a typed envelope RPC: the record id, who acts, the body its map names. */
export type EnvelopeArgs<D extends { request: ZodTypeAny }> = EnvelopeFields & BodyArg<z.input<D['request']>>;

/** Calls one JSON RPC of a service for the request's organization, typed by the service's RPC map. */
export type JsonCall<J extends JsonRpcMap> = <K extends keyof J & string>(
  deps: AdminDeps,
  org: OrgScope,
  method: K,
  args: EnvelopeArgs<J[K]>,
) => Promise<z.output<J[K]['answer']>>;

/**
 * The caller of a service's JSON-answer envelope RPCs for the request's organization: the body and
 * the answer are typed by the service's RPC map in @paymesh/contracts, and the answer is checked by
 * its schema (a mismatch is a bug of ours, hence an internal error). `target` names the service in
 * failures ("tax unavailable: ..."); `clientOf` picks its client. The service's caller is made once
 * per set of clients.
 * `const taxJson = jsonRpc('tax', (c) => c.tax, taxRpc)`, then `taxJson(deps, org, 'getTaxRate', { id })`.
 */
export function jsonRpc<J extends JsonRpcMap>(
  target: string,
  clientOf: (clients: Clients) => Client & JsonMethods<J>,
  map: J,
): JsonCall<J> {
  const callerOf = jsonCallerPerClients(target, clientOf, map);
  return (deps, org, method, args) => callerOf(deps.clients).json(method, toWire(org), args);
}

/** What a forwarding handler reads of its row's context. */
export interface ForwardContext<P = unknown, B = unknown, Q = unknown> {
  deps: AdminDeps;
  org: OrgScope;
  principal: Principal;
  params: P;
  body: B;
  query: Q;
}

/** Methods of a map whose request takes no fields beyond the envelope (`{}` or nothing). */
export type Bodiless<J extends JsonRpcMap> = {
  [K in keyof J & string]: Record<string, never> extends z.input<J[K]['request']> ? K : never;
}[keyof J & string];

type Input<J extends JsonRpcMap, K extends keyof J> = z.input<J[K]['request']>;

/** Methods of a map whose request body is the record's `{ id }`. */
export type IdBodied<J extends JsonRpcMap> = {
  [K in keyof J & string]: { id: string } extends Input<J, K> ? K : never;
}[keyof J & string];
type IdContext<B = unknown, Q = unknown> = ForwardContext<{ id: string }, B, Q>;
/** A row's handler that answers what RPC `K` answers. */
type Forward<J extends JsonRpcMap, K extends keyof J, C> = (ctx: C) => Promise<z.output<J[K]['answer']>>;

/**
 * Handlers of rows that hand their input to one JSON RPC of a service as it is and answer what the
 * RPC answers: `const toBilling = forwarders(billingJson)`, then `handler: toBilling.byId('getInvoice')`.
 * The row's checked input must be what the RPC takes (the context types say so).
 */
export interface Forwarders<J extends JsonRpcMap> {
  /** `{}`: the organization is all the RPC needs. */
  bare<K extends Bodiless<J>>(method: K): Forward<J, K, ForwardContext>;
  /** The path's `id` (`GET /invoices/:id`). */
  byId<K extends Bodiless<J>>(method: K): Forward<J, K, IdContext>;
  /** The path's `id`, and who acts. */
  byIdActing<K extends Bodiless<J>>(method: K): Forward<J, K, IdContext>;
  /** The path's `id` as the body's `id`. */
  idInBody<K extends IdBodied<J>>(method: K): Forward<J, K, IdContext>;
  /** The checked query as the body (`GET /credit-notes?page=2`). */
  query<K extends keyof J & string>(method: K): Forward<J, K, ForwardContext<unknown, unknown, Input<J, K>>>;
  /** The path's `id` and the checked query as the body. */
  byIdQuery<K extends keyof J & string>(method: K): Forward<J, K, IdContext<unknown, Input<J, K>>>;
  /** The checked body (`POST /invoices`). */
  body<K extends keyof J & string>(method: K): Forward<J, K, ForwardContext<unknown, Input<J, K>>>;
  /** The checked body, and who acts. */
  bodyActing<K extends keyof J & string>(method: K): Forward<J, K, ForwardContext<unknown, Input<J, K>>>;
  /** The path's `id` and the checked body (`PUT /invoices/:id`). */
  byIdBody<K extends keyof J & string>(method: K): Forward<J, K, IdContext<Input<J, K>>>;
  /** The path's `id`, the checked body, and who acts. */
  byIdBodyActing<K extends keyof J & string>(method: K): Forward<J, K, IdContext<Input<J, K>>>;
}

/** The {@link Forwarders} of a service's JSON RPCs. */
export function forwarders<J extends JsonRpcMap>(call: JsonCall<J>): Forwarders<J> {
  // The arguments as the call takes them: each method's constraint above says the row's input fits.
  const send = <K extends keyof J & string>(
    ctx: ForwardContext,
    method: K,
    args: EnvelopeFields & { body?: unknown },
  ) => call(ctx.deps, ctx.org, method, args as EnvelopeArgs<J[K]>);
  const actor = (ctx: ForwardContext) => actorOf(ctx.principal);
  return {
    bare: (method) => async (ctx) => send(ctx, method, {}),
    byId: (method) => async (ctx) => send(ctx, method, { id: ctx.params.id }),
    byIdActing: (method) => async (ctx) => send(ctx, method, { id: ctx.params.id, actor: actor(ctx) }),
    idInBody: (method) => async (ctx) => send(ctx, method, { body: { id: ctx.params.id } }),
    query: (method) => async (ctx) => send(ctx, method, { body: ctx.query }),
    byIdQuery: (method) => async (ctx) => send(ctx, method, { id: ctx.params.id, body: ctx.query }),
    body: (method) => async (ctx) => send(ctx, method, { body: ctx.body }),
    bodyActing: (method) => async (ctx) => send(ctx, method, { body: ctx.body, actor: actor(ctx) }),
    byIdBody: (method) => async (ctx) => send(ctx, method, { id: ctx.params.id, body: ctx.body }),
    byIdBodyActing: (method) => async (ctx) =>
      send(ctx, method, { id: ctx.params.id, body: ctx.body, actor: actor(ctx) }),
  };
}
