import { newObjectId } from '@paymesh/core';
import type { ClientFieldChange, ClientHistoryEntry } from '@paymesh/contracts';
import type { StoredDoc, TxScope } from '@paymesh/store';
import { CLIENT_HISTORY } from '../store/collections';
import type { OrgKey } from './deps';

/** An entry of the append-only client history as stored (never updated, never deleted). */
export interface ClientHistoryDoc extends StoredDoc, Omit<ClientHistoryEntry, 'id'> {
  organizationId: string;
  mode: 'live' | 'test';
}

/** Appends a history entry inside the transaction that makes the change. */
export async function appendHistory(
  tx: TxScope,
  key: OrgKey,
  entry: {
    clientId: string;
    at: string;
    actor: string;
    action: ClientHistoryEntry['action'];
    changes: ClientFieldChange[];
  },
): Promise<void> {
  await tx
    .collection<ClientHistoryDoc>(CLIENT_HISTORY)
    .insert({ id: newObjectId(), organizationId: key.organizationId, mode: key.mode, ...entry });
}

/** Who acted, as the gateway sent it (`user:<id>`, `api_key:<id>`, `system_key:<id>`). */
export function actorOrSystem(actor: string | undefined): string {
  return actor === undefined || actor.trim() === '' ? 'system' : actor;
}
