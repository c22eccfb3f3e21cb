import type { Client } from '@grpc/grpc-js';
import type { ZodType, ZodTypeDef } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';
import { rpc } from './common';

/** The request of a backend's JSON-carrying RPC (tax, billing). */
export interface JsonRpcRequest {
  organizationId: string;
  testMode: boolean;
  id: string;
  bodyJson: string;
  actor: string;
  /**
   * Billing's CreateInvoice key for internal callers; always empty from the Admin API. Every field
   * is set: the generated encoders write any field that is not its default, `undefined` included.
   */
  idempotencyKey: string;
}

/** What a route hands to a JSON-carrying RPC. */
export interface JsonCall {
  id?: string;
  body?: unknown;
  /** Who acts (billing's audit trails); ignored by services that keep none. */
  actor?: string;
  /** Deadline when not the usual one (calls that render a document). */
  deadlineMs?: number;
}

/**
 * Calls a JSON-carrying RPC for the request's organization and parses the answer with its contract
 * schema (a mismatch is a bug of ours, hence an internal error).
 */
export async function callJsonRpc<T>(
  deps: AdminDeps,
  target: string,
  client: Client,
  method: unknown,
  org: OrgScope,
  answer: ZodType<T, ZodTypeDef, unknown>,
  call: JsonCall,
): Promise<T> {
  const req: JsonRpcRequest = {
    organizationId: org.organizationId,
    testMode: org.mode === 'test',
    id: call.id ?? '',
    bodyJson: call.body === undefined ? '' : JSON.stringify(call.body),
    actor: call.actor ?? '',
    idempotencyKey: '',
  };
  const res = await rpc<JsonRpcRequest, { json: string }>(deps, target, client, method as never, req, call.deadlineMs);
  return answer.parse(JSON.parse(res.json));
}
