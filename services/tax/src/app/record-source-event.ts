import { ConflictError, ErrorCode } from '@paymesh/core';
import { Subjects } from '@paymesh/contracts';
import type { LedgerSource } from '../domain/ledger';
import { roleOf, sourceEventDocId } from '../domain/ledger';
import { receivedSourceEventDoc, type SourceEventDoc } from '../domain/source-event';
import { SOURCE_EVENT_SEQUENCE, TAX_SOURCE_EVENTS } from '../store/collections';
import type { TaxDeps } from './deps';
import { deriveSourceEvent, recordNewSale, type DeriveResult } from './derive-source-event';

/**
 * Consumes one ledger event: keeps it in the inbox (once per event id) and derives its entries.
 * Delivering the same event again, even concurrently, stores and writes nothing new.
 *
 * An event whose role is neither a sale nor a correction (a transaction's status changes other
 * than to completed or refunded, and a dispute won) never derives an entry and no sale or
 * correction ever looks for it: it is not kept, and costs no store statement.
 */
export async function recordSourceEvent(deps: TaxDeps, source: LedgerSource): Promise<DeriveResult> {
  if (roleOf(source) === 'other') {
    const reason =
      source.subject === Subjects.transactionStatusChanged
        ? `transaction status ${source.data.status} (from ${String(source.data.previousStatus)}) records no tax`
        : 'records no tax';
    deps.logger.debug(
      { eventId: source.eventId, subject: source.subject, organizationId: source.data.organizationId, reason },
      'ledger source event records no entry; not kept',
    );
    return { state: 'no_entry', reason, created: 0, existing: 0, mismatched: 0 };
  }
  const collection = deps.store.collection<SourceEventDoc>(TAX_SOURCE_EVENTS);
  const id = sourceEventDocId(source.eventId);
  let doc: SourceEventDoc | null;
  const received = receivedSourceEventDoc(source, deps.clock.now().toISOString());
  // A first delivery of a sale is stored settled, with its entries and its place in the order, in
  // one statement.
  const fast = await recordNewSale(deps, received);
  if (fast) return fast;
  // Insert first: a first delivery (nearly all of them) costs no look-up; a redelivery finds the
  // key taken and reads the stored event (its sequence number stays unused: a rebuild only needs
  // the order).
  const seq = await deps.store.nextSequence(SOURCE_EVENT_SEQUENCE);
  try {
    doc = await collection.insert({ ...received, seq });
  } catch (err) {
    if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    doc = await collection.get(id);
    if (!doc) throw new Error(`ledger source event ${source.eventId}: key taken but the document cannot be read`);
  }
  return deriveSourceEvent(deps, doc);
}
