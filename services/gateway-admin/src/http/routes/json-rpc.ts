import type { Client } from '@grpc/grpc-js';
import { toWire } from '@paymesh/core';
import { jsonCaller, type BodyArg, type EnvelopeFields, type JsonMethods } from '@paymesh/grpc';
import type { z, ZodTypeAny } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';

/** What a route hands to a typed envelope RPC: the record id, who acts, the body its map names. */
export type EnvelopeArgs<D extends { request: ZodTypeAny }> = EnvelopeFields & BodyArg<z.input<D['request']>>;

/**
 * Calls a JSON-answer envelope RPC of a service for the request's organization: the body and the
 * answer are typed by the service's RPC map in @paymesh/contracts, and the answer is checked by
 * its schema (a mismatch is a bug of ours, hence an internal error).
 */
export function callJson<
  J extends { readonly [P in keyof J]: { request: ZodTypeAny; answer: ZodTypeAny } },
  K extends keyof J & string,
>(
  deps: AdminDeps,
  target: string,
  client: Client & JsonMethods<J>,
  map: J,
  org: OrgScope,
  method: K,
  args: EnvelopeArgs<J[K]>,
): Promise<z.output<J[K]['answer']>> {
  return jsonCaller(client, map, { deadlineMs: deps.clients.deadlineMs, target }).json(method, toWire(org), args);
}
