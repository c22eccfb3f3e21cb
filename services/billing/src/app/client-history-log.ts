import { newObjectId } from '@paymesh/core';
import type { ClientFieldChange, ClientHistoryEntry } from '@paymesh/contracts';
import type { NewDoc, StoredDoc, TxScope } from '@paymesh/store';
import { CLIENT_HISTORY } from '../store/collections';
import type { OrgKey } from './deps';

/** An entry of the append-only client history as stored (never updated, never deleted). */
export interface ClientHistoryDoc extends StoredDoc, Omit<ClientHistoryEntry, 'id'> {
  organizationId: string;
  mode: 'live' | 'test';
}

/** What a history entry records: which client, when, who, and the field changes. */
export interface HistoryEntryInput {
  clientId: string;
  at: string;
  actor: string;
  action: ClientHistoryEntry['action'];
  changes: ClientFieldChange[];
}

/** A history entry as stored: a new id, in the tenant's organization and mode. */
export function historyDoc(key: OrgKey, entry: HistoryEntryInput): NewDoc<ClientHistoryDoc> {
  return { id: newObjectId(), organizationId: key.organizationId, mode: key.mode, ...entry };
}

/** Appends a history entry inside the transaction that makes the change. */
export async function appendHistory(tx: TxScope, key: OrgKey, entry: HistoryEntryInput): Promise<void> {
  await tx.collection<ClientHistoryDoc>(CLIENT_HISTORY).insert(historyDoc(key, entry));
}

/** Who acted, as the gateway sent it (`user:<id>`, `api_key:<id>`, `system_key:<id>`). */
export function actorOrSystem(actor: string | undefined): string {
  return actor === undefined || actor.trim() === '' ? 'system' : actor;
}
