import { boundedTotal, countUpToOf } from '@paymesh/core';
import type { ClientListQuery, ClientPage, ClientRecord } from '@paymesh/contracts';
import { viewOf } from './client-codec';
import { clientsOf, requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/** One client as the Admin API shows it. */
export async function getClient(
  deps: BillingDeps,
  key: OrgKey,
  clientId: string,
  includeTaxInfo: boolean,
): Promise<ClientRecord> {
  return viewOf(deps, key, await requireClient(deps, key, clientId), includeTaxInfo);
}

/** The organization's clients, newest first (ties by id); the total bounded like the transactions list's. */
export async function listClients(deps: BillingDeps, key: OrgKey, query: ClientListQuery): Promise<ClientPage> {
  const page = await clientsOf(deps).find(
    { organizationId: key.organizationId, mode: key.mode },
    { sort: { createdAt: -1 }, page: query.page, limit: query.limit, total: true, countUpTo: countUpToOf(query) },
  );
  return {
    items: page.items.map((doc) => viewOf(deps, key, doc, query.includeTaxInfo)),
    ...boundedTotal(page),
    page: page.page,
    limit: page.limit,
  };
}
