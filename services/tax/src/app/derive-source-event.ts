import { ConflictError, ErrorCode, NotSupportedError, ValidationError } from '@paymesh/core';
import { Subjects, type CalculateTaxRequest, type TaxCalculation, type TaxRecord } from '@paymesh/contracts';
import {
  deriveEntries,
  entryContent,
  refundRecordId,
  type CorrectedSale,
  type DeriveContext,
  type Derivation,
} from '../domain/ledger';
import {
  sourceOf,
  type ReceivedSourceEvent,
  type SourceEventDoc,
  type SourceState,
  type TaxRecordDoc,
} from '../domain/source-event';
import { SOURCE_EVENT_SEQUENCE, TAX_RECORDS, TAX_SOURCE_EVENTS } from '../store/collections';
import type { TaxDeps } from './deps';
import { taxForRequest } from './ledger-engine';

/** What deriving one source event did: its state and what became of the entries it derives. */
export interface DeriveResult {
  state: SourceState;
  reason: string | null;
  /** Entries written now. */
  created: number;
  /** Entries already stored, identical to their derivation. */
  existing: number;
  /** Entries already stored that differ from their derivation (kept as stored, logged). */
  mismatched: number;
}

const records = (deps: TaxDeps) => deps.store.collection<TaxRecordDoc>(TAX_RECORDS);
const sources = (deps: TaxDeps) => deps.store.collection<SourceEventDoc>(TAX_SOURCE_EVENTS);

/** What is known of the sale entry a correction (refund, void, credit note) refers to. */
async function correctedSale(deps: TaxDeps, doc: SourceEventDoc): Promise<CorrectedSale> {
  const [kind, id] = doc.anchor.split(':');
  const scope = { organizationId: doc.organizationId, mode: doc.mode };
  const entry = await records(deps).findOne(
    { ...scope, sourceKind: kind ?? '', sourceId: id ?? '', entryType: 'sale' },
    { sort: { createdAt: -1 } },
  );
  if (entry) return { state: 'recorded', entry };
  const sales = await sources(deps).find({ ...scope, anchor: doc.anchor, role: 'sale' });
  if (sales.items.length > 0 && sales.items.every((s) => s.state === 'no_entry')) return { state: 'not_recorded' };
  return { state: 'unknown' };
}

/**
 * The reversal entries already recorded for a transaction (provider refunds, an earlier move to
 * refunded) other than the ones `doc` itself derives: what a move to refunded (3) leaves out and
 * what tells a late refund that the sale is reversed already.
 */
async function otherReversals(deps: TaxDeps, doc: SourceEventDoc): Promise<TaxRecord[]> {
  if (doc.role !== 'correction' || !doc.anchor.startsWith('transaction:')) return [];
  const source = sourceOf(doc);
  if (source.subject === Subjects.transactionRefunded) {
    const own = await records(deps).get(refundRecordId(source.data.transactionId, source.data.refundId));
    // Already written: derive it again as written (a redelivery or a rebuild), nothing to weigh.
    if (own) return [];
  }
  const found = await records(deps).find(
    {
      organizationId: doc.organizationId,
      mode: doc.mode,
      sourceKind: 'transaction',
      sourceId: doc.anchor.slice('transaction:'.length),
      entryType: 'reversal',
    },
    { sort: { createdAt: 1 }, limit: 1000 },
  );
  return found.items.filter((e) => e.sourceEventId !== doc.eventId);
}

/** Writes an entry once; an entry already stored is compared with the derivation, never rewritten. */
async function writeEntry(deps: TaxDeps, entry: TaxRecord): Promise<'created' | 'existing' | 'mismatched'> {
  try {
    await records(deps).insert(entry);
    return 'created';
  } catch (err) {
    if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
  }
  const stored = await records(deps).get(entry.id);
  if (!stored) throw new Error(`tax record ${entry.id}: key taken but the entry cannot be read`);
  // A transaction's entry linked since to the invoice issued for it (linkInvoicePayments) is its derivation plus that link.
  const derived =
    stored.sourceKind === 'transaction' && stored.invoicePayment === true && entry.invoicePayment !== true
      ? { ...entry, linkedInvoiceId: stored.linkedInvoiceId, invoicePayment: true }
      : entry;
  if (entryContent(stored) === entryContent(derived)) return 'existing';
  deps.logger.warn(
    {
      recordId: entry.id,
      sourceEventId: entry.sourceEventId,
      organizationId: entry.organizationId,
      stored: entryContent(stored),
      derived: entryContent(entry),
    },
    'tax record differs from its re-derivation; kept as stored',
  );
  return 'mismatched';
}

/**
 * An invoice issued for a transaction that was already paid (an automatic invoice, one drafted from
 * the transaction) names the transaction, while the transaction's entries, written before the
 * invoice existed, name no invoice. Reports over both sources count the invoice, so the
 * transaction's entries are then marked as the invoice's payment. Each side looks for the other
 * after its own entry is written, so whichever comes second links them: in either order, under
 * concurrent delivery, and on a redelivery after a crash between the write and the link.
 */
async function linkInvoicePayments(deps: TaxDeps, entries: readonly TaxRecord[]): Promise<void> {
  for (const e of entries) {
    const scope = { organizationId: e.organizationId, mode: e.mode };
    if (e.sourceKind === 'invoice' && e.entryType === 'sale' && e.linkedTransactionId) {
      await markInvoicePayment(deps, scope, e.linkedTransactionId, e.sourceId);
    } else if (e.sourceKind === 'transaction' && e.invoicePayment !== true) {
      const invoice = await records(deps).findOne({
        ...scope,
        sourceKind: 'invoice',
        entryType: 'sale',
        linkedTransactionId: e.sourceId,
      });
      if (invoice) await markInvoicePayment(deps, scope, e.sourceId, invoice.sourceId);
    }
  }
}

/** Marks a transaction's entries not yet linked as the payment of `invoiceId` (amounts unchanged). */
async function markInvoicePayment(
  deps: TaxDeps,
  scope: { organizationId: string; mode: 'live' | 'test' },
  transactionId: string,
  invoiceId: string,
): Promise<void> {
  const unlinked = await records(deps).find(
    { ...scope, sourceKind: 'transaction', sourceId: transactionId, invoicePayment: { $ne: true } },
    { limit: 1000 },
  );
  for (const entry of unlinked.items) {
    await records(deps).update(
      entry.id,
      (cur) => {
        if (cur.invoicePayment === true) return null;
        return { ...cur, linkedInvoiceId: invoiceId, invoicePayment: true };
      },
      5,
      entry,
    );
  }
  if (unlinked.items.length > 0)
    deps.logger.info(
      { ...scope, transactionId, invoiceId, entries: unlinked.items.length },
      'tax records of a transaction linked to the invoice issued for it',
    );
}

type EngineOutcome = { tax: TaxCalculation } | { state: 'pending' | 'no_entry'; reason: string };

/** The engine's answer for a transaction that carried only its engine request. */
async function engineTax(
  deps: TaxDeps,
  doc: Pick<SourceEventDoc, 'eventId'>,
  request: CalculateTaxRequest,
): Promise<EngineOutcome> {
  try {
    return { tax: await taxForRequest(deps, request) };
  } catch (err) {
    if (err instanceof NotSupportedError)
      return { state: 'pending', reason: `awaiting the tax engine: ${err.message}` };
    if (err instanceof ValidationError)
      return { state: 'no_entry', reason: `the stored engine request is not usable: ${err.message}` };
    deps.logger.warn({ err, eventId: doc.eventId }, 'tax engine failed for a ledger source event');
    throw err;
  }
}

type Derived =
  | { derivation: Exclude<Derivation, { outcome: 'needs_tax' }>; derivedTax: TaxCalculation | null }
  | { engine: { state: 'pending' | 'no_entry'; reason: string } };

/** Derives a source event's entries, asking the engine first when the event carries only its request. */
async function derive(
  deps: TaxDeps,
  doc: Pick<SourceEventDoc, 'eventId'>,
  source: ReturnType<typeof sourceOf>,
  ctx: Omit<DeriveContext, 'derivedTax'>,
  stored: TaxCalculation | null,
): Promise<Derived> {
  const first = deriveEntries(source, { ...ctx, derivedTax: stored });
  if (first.outcome !== 'needs_tax') return { derivation: first, derivedTax: stored };
  const engine = await engineTax(deps, doc, first.request);
  if (!('tax' in engine)) return { engine };
  const derivation = deriveEntries(source, { ...ctx, derivedTax: engine.tax });
  if (derivation.outcome === 'needs_tax') throw new Error('unreachable: the engine answered');
  return { derivation, derivedTax: engine.tax };
}

/** Saves where the source event stands; `recorded` is final (a late, stale pass never undoes it). */
async function settle(
  deps: TaxDeps,
  doc: SourceEventDoc,
  next: { state: SourceState; reason: string | null; derivedTax: TaxCalculation | null; entryIds: string[] },
) {
  const now = deps.clock.now().toISOString();
  return sources(deps).update(
    doc.id,
    (cur) => {
      if (cur.state === 'recorded' && next.state !== 'recorded') return null;
      const derivedTax = cur.derivedTax ?? next.derivedTax;
      const entryIds = [...new Set([...cur.entryIds, ...next.entryIds])];
      if (
        cur.state === next.state &&
        cur.reason === next.reason &&
        cur.derivedTax === derivedTax &&
        entryIds.length === cur.entryIds.length
      )
        return null;
      return { ...cur, state: next.state, reason: next.reason, derivedTax, entryIds, updatedAt: now };
    },
    5,
    doc,
  );
}

/**
 * Derives a stored source event's entries and writes the missing ones (consumer and rebuild
 * alike; idempotent, safe under concurrent redelivery). A sale that settles derives the
 * corrections that waited for it.
 */
export async function deriveSourceEvent(deps: TaxDeps, doc: SourceEventDoc, retried = false): Promise<DeriveResult> {
  const source = sourceOf(doc);
  const createdAt = deps.clock.now().toISOString();
  const corrected: CorrectedSale = doc.role === 'correction' ? await correctedSale(deps, doc) : { state: 'unknown' };
  const refundEntries = corrected.state === 'recorded' ? await otherReversals(deps, doc) : [];
  const derived = await derive(deps, doc, source, { corrected, refundEntries, createdAt }, doc.derivedTax);
  if ('engine' in derived)
    return finish(deps, doc, {
      state: derived.engine.state,
      reason: derived.engine.reason,
      derivedTax: null,
      entryIds: [],
    });
  const { derivation, derivedTax } = derived;
  switch (derivation.outcome) {
    case 'entries': {
      const counts = { created: 0, existing: 0, mismatched: 0 };
      for (const entry of derivation.entries) counts[await writeEntry(deps, entry)]++;
      await linkInvoicePayments(deps, derivation.entries);
      const entryIds = derivation.entries.map((e) => e.id);
      const result = await finish(deps, doc, { state: 'recorded', reason: null, derivedTax, entryIds });
      return {
        ...result,
        created: result.created + counts.created,
        existing: result.existing + counts.existing,
        mismatched: result.mismatched + counts.mismatched,
      };
    }
    case 'none':
      return finish(deps, doc, { state: 'no_entry', reason: derivation.reason, derivedTax, entryIds: [] });
    case 'awaiting_sale': {
      const result = await finish(deps, doc, { state: 'pending', reason: derivation.reason, derivedTax, entryIds: [] });
      // The sale may have settled between the look-up and this write (it then found nothing waiting): look once more.
      if (!retried && (await correctedSale(deps, doc)).state !== 'unknown') return deriveSourceEvent(deps, doc, true);
      return result;
    }
  }
}

/**
 * A sale consumed for the first time (nearly every one): its entries follow from the event alone
 * (no corrected sale, no earlier reversals to read), so the source event is stored already settled
 * together with its entries, in one store transaction (one statement), instead of storing it as
 * received, writing the entries and settling it in three. What follows is the same as after a
 * settle: the link to an invoice issued for it, then the corrections that waited for it.
 *
 * Returns null when the sale needs the slower path: the engine cannot answer yet (pending), or a
 * key is taken (a redelivery, or an entry written before); nothing is written then.
 */
export async function recordNewSale(deps: TaxDeps, received: ReceivedSourceEvent): Promise<DeriveResult | null> {
  if (received.role !== 'sale') return null;
  const source = sourceOf(received);
  const ctx = { corrected: { state: 'unknown' } as const, refundEntries: [], createdAt: received.receivedAt };
  const derived = await derive(deps, received, source, ctx, received.derivedTax);
  if ('engine' in derived) return null;
  const { derivation, derivedTax } = derived;
  if (derivation.outcome !== 'entries' && derivation.outcome !== 'none') return null;
  const entries = derivation.outcome === 'entries' ? derivation.entries : [];
  const settled: ReceivedSourceEvent = {
    ...received,
    state: derivation.outcome === 'entries' ? 'recorded' : 'no_entry',
    reason: derivation.outcome === 'none' ? derivation.reason : null,
    derivedTax,
    entryIds: [...new Set(entries.map((e) => e.id))],
  };
  const doc = settled;
  try {
    // The event's place in the order (`seq`) is taken by the insert itself.
    await deps.store.transaction(async (tx) => {
      await tx.insertNumbered<SourceEventDoc, 'seq'>(TAX_SOURCE_EVENTS, settled, {
        field: 'seq',
        key: SOURCE_EVENT_SEQUENCE,
      });
      if (entries.length > 0) await tx.collection<TaxRecordDoc>(TAX_RECORDS).insertMany(entries);
    });
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) return null;
    throw err;
  }
  if (entries.length > 0) await linkInvoicePayments(deps, entries);
  if (doc.state === 'no_entry')
    deps.logger.info(
      {
        eventId: doc.eventId,
        subject: doc.subject,
        organizationId: doc.organizationId,
        anchor: doc.anchor,
        reason: doc.reason,
      },
      'ledger source event records no entry',
    );
  const corrections = await deriveWaitingCorrections(deps, doc);
  return { state: doc.state, reason: doc.reason, ...corrections, created: corrections.created + entries.length };
}

async function finish(
  deps: TaxDeps,
  doc: SourceEventDoc,
  next: { state: SourceState; reason: string | null; derivedTax: TaxCalculation | null; entryIds: string[] },
): Promise<DeriveResult> {
  const saved = await settle(deps, doc, next);
  const log = {
    eventId: doc.eventId,
    subject: doc.subject,
    organizationId: doc.organizationId,
    anchor: doc.anchor,
    reason: next.reason,
  };
  if (next.state === 'pending') deps.logger.info(log, 'ledger source event waits');
  else if (next.state === 'no_entry')
    deps.logger[doc.role === 'other' ? 'debug' : 'info'](log, 'ledger source event records no entry');
  const corrections =
    doc.role === 'sale' && (saved.state === 'recorded' || saved.state === 'no_entry')
      ? await deriveWaitingCorrections(deps, doc)
      : NO_COUNTS;
  return { state: saved.state, reason: saved.reason, ...corrections };
}

type Counts = Pick<DeriveResult, 'created' | 'existing' | 'mismatched'>;
const NO_COUNTS: Counts = { created: 0, existing: 0, mismatched: 0 };

/** Records that deriving the source event threw (a rebuild tries it again). */
export async function markSourceFailed(deps: TaxDeps, doc: SourceEventDoc, reason: string): Promise<void> {
  await settle(deps, doc, { state: 'failed', reason, derivedTax: null, entryIds: [] });
}

/** Derives the corrections of the same document that waited for its sale; counts what they wrote. */
async function deriveWaitingCorrections(
  deps: TaxDeps,
  sale: Pick<SourceEventDoc, 'organizationId' | 'mode' | 'anchor'>,
): Promise<Counts> {
  const waiting = await sources(deps).find({
    organizationId: sale.organizationId,
    mode: sale.mode,
    anchor: sale.anchor,
    role: 'correction',
    state: 'pending',
  });
  const counts = { ...NO_COUNTS };
  for (const doc of waiting.items) {
    const r = await deriveSourceEvent(deps, doc);
    counts.created += r.created;
    counts.existing += r.existing;
    counts.mismatched += r.mismatched;
  }
  return counts;
}
