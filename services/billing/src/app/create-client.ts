import { newObjectId } from '@paymesh/core';
import type { ClientCreate, ClientRecord } from '@paymesh/contracts';
import type { ClientDoc } from '../domain/client';
import { diffClient } from '../domain/client-history';
import { assertValidTaxInfo, newPlainClient } from '../domain/client-plain';
import { CLIENTS } from '../store/collections';
import { clientView, sealClient } from './client-codec';
import { appendHistory } from './client-history-log';
import type { BillingDeps, OrgKey } from './deps';

/** Creates a client and its first history entry together; invalid input writes nothing. */
export async function createClient(deps: BillingDeps, key: OrgKey, input: ClientCreate, actor: string, includeTaxInfo: boolean): Promise<ClientRecord> {
  const plain = newPlainClient(input);
  assertValidTaxInfo(plain.taxInfo);
  const id = newObjectId();
  const now = deps.clock.now().toISOString();
  const doc: Omit<ClientDoc, 'version'> = { id, organizationId: key.organizationId, mode: key.mode, ...sealClient(deps, key, id, plain), createdAt: now, updatedAt: now };
  const stored = await deps.store.transaction(async (tx) => {
    const inserted = await tx.collection<ClientDoc>(CLIENTS).insert(doc);
    await appendHistory(tx, key, { clientId: id, at: now, actor, action: 'create', changes: diffClient(null, plain) });
    return inserted;
  });
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, clientId: id }, 'client created');
  return clientView(stored, plain, includeTaxInfo);
}
