import { z } from 'zod';
import { call, type UnaryMethod } from '@paymesh/grpc';
import { toWire, type WireTenant } from '@paymesh/core';
import { objectId, pageNumber } from '@paymesh/http';
import type { AdminDeps } from '../../app/deps';
import type { Clients } from '../../clients';
import type { OrgScope } from '../route-table';

export { objectId };

export const idParams = z.object({ id: objectId('id') });

/**
 * Routes that act on the whole book take no parameters: anything given is refused rather than
 * ignored, so a mistyped filter never turns into "delete everything".
 */
export const noParameters = z.object({}).strict();

/** No fields: no body, or an empty object (the route table takes an absent body as {}). */
export const noBody = z.object({}).strict();

/** An absent `optional` field, or an empty one of a field without presence, is null in the Admin API. */
export const orNull = (v: string | undefined): string | null => v || null;

/** A day in a query, YYYY-MM-DD (its format is checked here). */
export const queryDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

/** `page` (default 1, at most 1 000 000) and `limit` (default `def`, at most 100; larger values are rejected with 400). */
export const pageQuery = (def = 20) =>
  z.object({
    page: pageNumber,
    limit: z.coerce.number().int().min(1).max(100).default(def),
  });

/** The backend clients of the gateway (not the deadlines). */
type ServiceClient = Exclude<keyof Clients, 'deadlineMs' | 'documentDeadlineMs' | 'close'>;

/** The service behind each client, as a failure names it ("checkout unavailable: ..."). */
const TARGET_OF: Readonly<Record<ServiceClient, string>> = {
  checkout: 'checkout',
  checkoutPayments: 'checkout',
  paymentsWebhooks: 'payments-webhooks',
  billing: 'billing',
  tax: 'tax',
  recurring: 'recurring',
  documents: 'documents',
  notificationsIpn: 'notifications-ipn',
};

/**
 * Calls a backend RPC with the request's context and the configured deadline:
 * `serviceRpc(deps, 'notificationsIpn', (c) => c.listDeliveries, { organizationId, transactionId })`.
 */
export function serviceRpc<S extends ServiceClient, Req, Res>(
  deps: AdminDeps,
  service: S,
  method: (client: Clients[S]) => UnaryMethod<Req, Res>,
  req: Req,
): Promise<Res> {
  const client = deps.clients[service];
  return call(client, method(client), req, { deadlineMs: deps.clients.deadlineMs, target: TARGET_OF[service] });
}

/**
 * Calls a backend RPC for the request's organization: the request is `req` with the organization
 * and its data mode (`toWire(org)`). `orgRpc(deps, org, 'checkout', (c) => c.getSite, { id })`.
 */
export function orgRpc<S extends ServiceClient, B, Res>(
  deps: AdminDeps,
  org: OrgScope,
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant & B, Res>,
  req: B,
): Promise<Res> {
  return serviceRpc(deps, service, method, { ...toWire(org), ...req });
}

/** A page of a list RPC's answer in its Admin shape. */
export function pageOf<T, V>(res: RecordPage<T>, view: (item: T) => V) {
  return { items: res.items.map(view), total: res.total, page: res.page, limit: res.limit };
}

/** What a handler of a row addressing one record by the path's `id` reads of its context. */
interface ByIdContext {
  deps: AdminDeps;
  org: OrgScope;
  params: { id: string };
}

/**
 * Handler of a row that reads (or acts on) one record named by the path's `id` and answers it in
 * its Admin shape: `handler: recordById('checkout', (c) => c.getSite, siteView)`.
 */
export function recordById<S extends ServiceClient, Res, V>(
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant & { id: string }, Res>,
  view: (record: Res) => V,
) {
  return async ({ deps, org, params }: ByIdContext): Promise<V> =>
    view(await orgRpc(deps, org, service, method, { id: params.id }));
}

/** Handler of a row that deletes the record named by the path's `id` and answers no content (204). */
export function removeById<S extends ServiceClient, Res>(
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant & { id: string }, Res>,
) {
  return async ({ deps, org, params }: ByIdContext): Promise<undefined> => {
    await orgRpc(deps, org, service, method, { id: params.id });
    return undefined;
  };
}

/** A page of a list RPC's answer. */
interface RecordPage<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

/**
 * Handler of a row that lists records a page at a time (the query's `page` and `limit`) and answers
 * the page in its Admin shape: `handler: recordPage('checkout', (c) => c.listSites, siteView)`.
 */
export function recordPage<S extends ServiceClient, T, V>(
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant & { page: number; limit: number }, RecordPage<T>>,
  view: (item: T) => V,
) {
  return async ({ deps, org, query }: { deps: AdminDeps; org: OrgScope; query: { page: number; limit: number } }) =>
    pageOf(await orgRpc(deps, org, service, method, { page: query.page, limit: query.limit }), view);
}

/** Handler of a row that reads settings of the organization and answers them in their Admin shape. */
export function settingsRead<S extends ServiceClient, Res, V>(
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant, Res>,
  view: (settings: Res) => V,
) {
  return async ({ deps, org }: { deps: AdminDeps; org: OrgScope }): Promise<V> =>
    view(await orgRpc(deps, org, service, method, {}));
}

/**
 * Handler of a row that changes settings of the organization: the checked body is the patch (as
 * JSON) the service merges; the settings it answers are answered in their Admin shape.
 */
export function settingsPatch<S extends ServiceClient, Res, V>(
  service: S,
  method: (client: Clients[S]) => UnaryMethod<WireTenant & { patchJson: string }, Res>,
  view: (settings: Res) => V,
) {
  return async ({ deps, org, body }: { deps: AdminDeps; org: OrgScope; body: unknown }): Promise<V> =>
    view(await orgRpc(deps, org, service, method, { patchJson: JSON.stringify(body) }));
}
