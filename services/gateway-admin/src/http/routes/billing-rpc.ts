import { billingFileRpc, billingRpc } from '@paymesh/contracts';
import { toWire } from '@paymesh/core';
import { callEnvelope } from '@paymesh/grpc';
import type { AdminDeps } from '../../app/deps';
import type { FileAnswer, OrgScope } from '../route-table';
import { forwarders, jsonRpc, type Forwarders, type JsonCall } from './json-rpc';

export { actorOf } from './actor';

/** Calls one of billing's JSON RPCs (`billingRpc`); `actor` goes to its audit trails. */
export const billingJson: JsonCall<typeof billingRpc> = jsonRpc('billing', (c) => c.billing, billingRpc);

export type BillingPdfMethod = 'getInvoicePdf' | 'regenerateInvoicePdf' | 'getCreditNotePdf';

/** Calls one of billing's PDF RPCs for the document `id`; the answer as a file route sends it (`X-Document-Rendered`: rendered by this request or served from storage). */
export async function billingPdf(
  deps: AdminDeps,
  org: OrgScope,
  method: BillingPdfMethod,
  id: string,
): Promise<FileAnswer> {
  const client = deps.clients.billing;
  const res = await callEnvelope(
    client,
    client[method],
    billingFileRpc[method],
    toWire(org),
    { id },
    {
      deadlineMs: deps.clients.documentDeadlineMs,
      target: 'billing',
    },
  );
  return {
    bytes: Buffer.from(res.pdf),
    filename: res.filename,
    headers: { 'x-document-rendered': String(res.rendered) },
  };
}

/** Handlers of rows that hand their input to one of billing's JSON RPCs as it is. */
export const toBilling: Forwarders<typeof billingRpc> = forwarders(billingJson);
