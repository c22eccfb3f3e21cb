import type { ClientRecord, ClientUpdate } from '@paymesh/contracts';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { applyClientPatch, assertValidTaxInfo } from '../domain/client-plain';
import { CLIENTS } from '../store/collections';
import { clientView, openClient, sealClient } from './client-codec';
import { appendHistory } from './client-history-log';
import { requireClient } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/**
 * Applies a merge patch. A patch that changes nothing writes nothing (no history entry either),
 * so repeating an update is harmless; a concurrent change of the same client is a 409.
 */
export async function updateClient(
  deps: BillingDeps,
  key: OrgKey,
  clientId: string,
  patch: ClientUpdate,
  actor: string,
  includeTaxInfo: boolean,
): Promise<ClientRecord> {
  const doc = await requireClient(deps, key, clientId);
  const before = openClient(deps, key, doc);
  const after = applyClientPatch(before, patch);
  assertValidTaxInfo(after.taxInfo);
  const changes = diffClient(before, after);
  if (changes.length === 0) return clientView(doc, before, includeTaxInfo);
  const now = deps.clock.now().toISOString();
  const next: Omit<ClientDoc, 'id' | 'version'> = {
    organizationId: doc.organizationId,
    mode: doc.mode,
    ...sealClient(deps, key, doc.id, after),
    createdAt: doc.createdAt,
    updatedAt: now,
  };
  const stored = await deps.store.transaction(async (tx) => {
    const replaced = await tx.collection<ClientDoc>(CLIENTS).replace(doc.id, doc.version, next);
    await appendHistory(tx, key, { clientId: doc.id, at: now, actor, action: 'update', changes });
    return replaced;
  });
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, clientId, fields: changes.map((c) => c.field) },
    'client updated',
  );
  return clientView(stored, after, includeTaxInfo);
}
