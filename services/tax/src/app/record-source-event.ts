import { ConflictError, ErrorCode } from '@paymesh/core';
import type { LedgerSource } from '../domain/ledger';
import { sourceEventDocId } from '../domain/ledger';
import { newSourceEventDoc, type SourceEventDoc } from '../domain/source-event';
import { SOURCE_EVENT_SEQUENCE, TAX_SOURCE_EVENTS } from '../store/collections';
import type { TaxDeps } from './deps';
import { deriveSourceEvent, type DeriveResult } from './derive-source-event';

/**
 * Consumes one ledger event: keeps it in the inbox (once per event id) and derives its entries.
 * Delivering the same event again, even concurrently, stores and writes nothing new.
 */
export async function recordSourceEvent(deps: TaxDeps, source: LedgerSource): Promise<DeriveResult> {
  const collection = deps.store.collection<SourceEventDoc>(TAX_SOURCE_EVENTS);
  const id = sourceEventDocId(source.eventId);
  let doc = await collection.get(id);
  if (!doc) {
    const seq = await deps.store.nextSequence(SOURCE_EVENT_SEQUENCE);
    try {
      doc = await collection.insert(newSourceEventDoc(source, seq, deps.clock.now().toISOString()));
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
      doc = await collection.get(id);
      if (!doc) throw new Error(`ledger source event ${source.eventId}: key taken but the document cannot be read`);
    }
  }
  return deriveSourceEvent(deps, doc);
}
