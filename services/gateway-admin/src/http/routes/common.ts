import { z } from 'zod';
import { call } from '@paymesh/grpc';
import type { Client } from '@grpc/grpc-js';
import { objectId, pageNumber } from '@paymesh/http';
import type { AdminDeps } from '../../app/deps';

export { objectId };

export const idParams = z.object({ id: objectId('id') });

/** `page` (default 1, at most 1 000 000) and `limit` (default `def`, at most 100; larger values are rejected with 400). */
export const pageQuery = (def = 20) =>
  z.object({
    page: pageNumber,
    limit: z.coerce.number().int().min(1).max(100).default(def),
  });

/** Calls a backend RPC with the request's context and the configured deadline (`deadlineMs` for the rare longer call). */
export function rpc<Req, Res>(
  deps: AdminDeps,
  target: string,
  client: Client,
  method: Parameters<typeof call<Req, Res>>[1],
  req: Req,
  deadlineMs: number = deps.clients.deadlineMs,
): Promise<Res> {
  return call(client, method, req, { deadlineMs, target });
}
