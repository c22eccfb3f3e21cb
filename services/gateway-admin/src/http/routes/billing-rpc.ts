import type { billing } from '@paymesh/proto';
import type { ZodType, ZodTypeDef } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { Principal } from '../../domain/principal';
import type { FileAnswer, OrgScope } from '../route-table';
import { rpc } from './common';
import { callJsonRpc, type JsonCall, type JsonRpcRequest } from './json-rpc';

/** Who acts, as billing's audit trails record it (`api_key:<id>`, `system_key:<id>`, `user:<id>`). */
export function actorOf(p: Principal): string {
  if (p.kind === 'user') return `user:${p.userId}`;
  return `${p.kind === 'system_key' ? 'system_key' : 'api_key'}:${p.keyId}`;
}

type BillingJsonMethod = keyof {
  [
    K in keyof billing.BillingServiceClient as billing.BillingServiceClient[K] extends (
      req: billing.BillingJsonRequest,
      ...rest: never[]
    ) => unknown
      ? K
      : never
  ]: true;
};

/** Calls one of the billing service's JSON-carrying RPCs (see callJsonRpc); `actor` goes to its audit trails. */
export function billingJson<T>(
  deps: AdminDeps,
  org: OrgScope,
  method: BillingJsonMethod,
  answer: ZodType<T, ZodTypeDef, unknown>,
  request: JsonCall = {},
): Promise<T> {
  const client = deps.clients.billing;
  return callJsonRpc(deps, 'billing', client, client[method], org, answer, request);
}

type BillingPdfMethod = 'getInvoicePdf' | 'regenerateInvoicePdf' | 'getCreditNotePdf';

/** Calls one of billing's PDF RPCs for the document `id`; the answer as a file route sends it (`X-Document-Rendered`: rendered by this request or served from storage). */
export async function billingPdf(
  deps: AdminDeps,
  org: OrgScope,
  method: BillingPdfMethod,
  id: string,
): Promise<FileAnswer> {
  const client = deps.clients.billing;
  const req: JsonRpcRequest = {
    organizationId: org.organizationId,
    testMode: org.mode === 'test',
    id,
    bodyJson: '',
    actor: '',
    idempotencyKey: '',
  };
  const res = await rpc<JsonRpcRequest, billing.BillingPdfResponse>(
    deps,
    'billing',
    client,
    client[method] as never,
    req,
    deps.clients.documentDeadlineMs,
  );
  return {
    bytes: Buffer.from(res.pdf),
    filename: res.filename,
    headers: { 'x-document-rendered': String(res.rendered) },
  };
}
