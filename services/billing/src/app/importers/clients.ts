import { ConflictError, ErrorCode, newObjectId } from '@paymesh/core';
import { clientCreate } from '@paymesh/contracts';
import type { ClientDoc } from '../../domain/client';
import { diffClient } from '../../domain/client-history';
import { assertValidTaxInfo, newPlainClient, type PlainClient } from '../../domain/client-plain';
import { IMPORT_LAYOUTS } from '../../domain/data-io';
import { CLIENT_HISTORY, CLIENTS } from '../../store/collections';
import { historyDoc, type ClientHistoryDoc } from '../client-history-log';
import { newClientDoc } from '../client-codec';
import { importKeyOf, oneRowCheck, type Importer } from './importer';

/** Clients: one row, one client; written in batches with their first history entries. */
export const clientImporter: Importer<PlainClient> = {
  check: oneRowCheck(IMPORT_LAYOUTS.clients.columns, clientCreate, (input) => {
    const plain = newPlainClient(input);
    assertValidTaxInfo(plain.taxInfo);
    return plain;
  }),
  async write(deps, key, ctx, records) {
    const keys = records.map((r) => importKeyOf(ctx.digest, r.row));
    const clients = deps.store.collection<ClientDoc & { importKey?: string }>(CLIENTS);
    for (let attempt = 0; ; attempt++) {
      const seen = await clients.find(
        { organizationId: key.organizationId, mode: key.mode, importKey: { $in: keys } },
        { limit: keys.length },
      );
      const done = new Set(seen.items.map((d) => d.importKey));
      const todo = records.filter((r) => !done.has(importKeyOf(ctx.digest, r.row)));
      if (todo.length === 0) return [0, records.length];
      const now = deps.clock.now().toISOString();
      try {
        const made = todo.map((r) => {
          const id = newObjectId();
          const doc = { ...newClientDoc(deps, key, id, r.input, now), importKey: importKeyOf(ctx.digest, r.row) };
          const entry = historyDoc(key, {
            clientId: id,
            at: now,
            actor: ctx.actor,
            action: 'create',
            changes: diffClient(null, r.input),
          });
          return { doc, entry };
        });
        const docs = made.map((m) => m.doc);
        const history = made.map((m) => m.entry);
        // The batch's clients and their first history entries: two statements, one transaction.
        await deps.store.transaction(async (tx) => {
          await tx.collection<ClientDoc & { importKey?: string }>(CLIENTS).insertMany(docs);
          await tx.collection<ClientHistoryDoc>(CLIENT_HISTORY).insertMany(history);
        });
        return [todo.length, records.length - todo.length];
      } catch (err) {
        // The same file imported at the same time wrote some of these rows first: skip what it wrote.
        if (attempt < 2 && err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) continue;
        throw err;
      }
    }
  },
};
