import type { ClientHistoryPage } from '@paymesh/contracts';
import { CLIENT_HISTORY } from '../store/collections';
import type { ClientHistoryDoc } from './client-history-log';
import { requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/**
 * A client's history, oldest first. It outlives the client: a deleted client's entries stay
 * readable; an id without client and without history is a 404.
 */
export async function clientHistory(
  deps: BillingDeps,
  key: OrgKey,
  clientId: string,
  paging: { page: number; limit: number },
): Promise<ClientHistoryPage> {
  const page = await deps.store
    .collection<ClientHistoryDoc>(CLIENT_HISTORY)
    .find(
      { organizationId: key.organizationId, mode: key.mode, clientId },
      { sort: { at: 1 }, page: paging.page, limit: paging.limit, total: true },
    );
  if (page.total === 0) await requireClient(deps, key, clientId);
  return {
    items: page.items.map((e) => ({
      id: e.id,
      clientId: e.clientId,
      at: e.at,
      actor: e.actor,
      action: e.action,
      changes: e.changes,
    })),
    total: page.total,
    page: page.page,
    limit: page.limit,
  };
}
