import { NotFoundError } from '@paymesh/core';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { CLIENTS } from '../store/collections';
import { openClient } from './client-codec';
import { appendHistory } from './client-history-log';
import { requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/**
 * Deletes a client for good (invoices keep their own snapshot of the buyer); its history stays and
 * records the deletion. Deleting it again is a 404.
 */
export async function deleteClient(
  deps: BillingDeps,
  key: OrgKey,
  clientId: string,
  actor: string,
): Promise<{ id: string; deleted: true }> {
  const doc = await requireClient(deps, key, clientId);
  const before = openClient(deps, key, doc);
  const now = deps.clock.now().toISOString();
  await deps.store.transaction(async (tx) => {
    if (!(await tx.collection<ClientDoc>(CLIENTS).delete(doc.id))) throw new NotFoundError('client not found');
    await appendHistory(tx, key, {
      clientId: doc.id,
      at: now,
      actor,
      action: 'delete',
      changes: diffClient(before, null),
    });
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, clientId }, 'client deleted');
  return { id: doc.id, deleted: true };
}
