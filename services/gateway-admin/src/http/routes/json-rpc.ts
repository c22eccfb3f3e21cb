import type { Client } from '@grpc/grpc-js';
import { toWire } from '@paymesh/core';
import { jsonCaller, type BodyArg, type EnvelopeFields, type JsonMethods } from '@paymesh/grpc';
import type { z, ZodTypeAny } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { Clients } from '../../clients';
import type { OrgScope } from '../route-table';

/** What a route hands to a typed envelope RPC: the record id, who acts, the body its map names. */
export type EnvelopeArgs<D extends { request: ZodTypeAny }> = EnvelopeFields & BodyArg<z.input<D['request']>>;

/** A service's RPC map in @paymesh/contracts: the request and answer schema of each method. */
type JsonRpcMap<J> = { readonly [P in keyof J]: { request: ZodTypeAny; answer: ZodTypeAny } };

/** Calls one JSON RPC of a service for the request's organization, typed by the service's RPC map. */
export type JsonCall<J extends JsonRpcMap<J>> = <K extends keyof J & string>(
  deps: AdminDeps,
  org: OrgScope,
  method: K,
  args: EnvelopeArgs<J[K]>,
) => Promise<z.output<J[K]['answer']>>;

/**
 * The caller of a service's JSON-answer envelope RPCs for the request's organization: the body and
 * the answer are typed by the service's RPC map in @paymesh/contracts, and the answer is checked by
 * its schema (a mismatch is a bug of ours, hence an internal error). `target` names the service in
 * failures ("tax unavailable: ..."); `clientOf` picks its client.
 * `const taxJson = jsonRpc('tax', (c) => c.tax, taxRpc)`, then `taxJson(deps, org, 'getTaxRate', { id })`.
 */
export function jsonRpc<J extends JsonRpcMap<J>>(
  target: string,
  clientOf: (clients: Clients) => Client & JsonMethods<J>,
  map: J,
): JsonCall<J> {
  return (deps, org, method, args) =>
    jsonCaller(clientOf(deps.clients), map, { deadlineMs: deps.clients.deadlineMs, target }).json(
      method,
      toWire(org),
      args,
    );
}
