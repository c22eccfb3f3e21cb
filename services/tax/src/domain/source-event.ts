import type { StoredDoc } from '@paymesh/store';
import {
  creditNoteIssued,
  invoiceIssued,
  invoiceVoided,
  Subjects,
  transactionRefunded,
  transactionStatusChanged,
  type TaxCalculation,
  type TaxRecord,
} from '@paymesh/contracts';
import { anchorOf, roleOf, sourceEventDocId, type LedgerSource, type SourceRole } from './ledger';

/**
 * Where a consumed event stands: `recorded` (its entries are written), `no_entry` (it records
 * nothing, `reason` says why), `pending` (waits for the engine or for the sale it corrects; a later
 * event or a rebuild derives it again), `failed` (derivation threw; a rebuild retries it).
 */
export type SourceState = 'received' | 'recorded' | 'no_entry' | 'pending' | 'failed';

/** A consumed event in the ledger's inbox (`tax_source_events`), unique by event id. */
export interface SourceEventDoc extends StoredDoc {
  eventId: string;
  subject: LedgerSource['subject'];
  organizationId: string;
  mode: 'live' | 'test';
  /** `transaction:<id>` or `invoice:<id>`: the sale and its corrections share it. */
  anchor: string;
  role: SourceRole;
  /** Order of arrival (a store counter): the order a rebuild walks. */
  seq: number;
  occurredAt: string;
  /** The event's data as consumed (validated). */
  data: unknown;
  state: SourceState;
  reason: string | null;
  /** The tax the engine derived from the event's `taxInput`, kept so a rebuild derives the same entry. */
  derivedTax: TaxCalculation | null;
  entryIds: string[];
  receivedAt: string;
  updatedAt: string;
}

/** A ledger entry as stored. */
export type TaxRecordDoc = TaxRecord & StoredDoc;

/** The subjects the ledger consumes and their data schemas. */
export const LEDGER_SUBJECTS = {
  [Subjects.transactionStatusChanged]: transactionStatusChanged,
  [Subjects.transactionRefunded]: transactionRefunded,
  [Subjects.invoiceIssued]: invoiceIssued,
  [Subjects.invoiceVoided]: invoiceVoided,
  [Subjects.creditNoteIssued]: creditNoteIssued,
} as const;

export function isLedgerSubject(subject: string): subject is LedgerSource['subject'] {
  return Object.prototype.hasOwnProperty.call(LEDGER_SUBJECTS, subject);
}

/**
 * Decodes an event of a ledger subject; throws the schema's error when `data` does not fit.
 */
export function ledgerSource(event: { id: string; type: string; occurredAt: string; data: unknown }): LedgerSource {
  const { id: eventId, type, occurredAt } = event;
  switch (type) {
    case Subjects.transactionStatusChanged:
      return { eventId, occurredAt, subject: type, data: transactionStatusChanged.parse(event.data) };
    case Subjects.transactionRefunded:
      return { eventId, occurredAt, subject: type, data: transactionRefunded.parse(event.data) };
    case Subjects.invoiceIssued:
      return { eventId, occurredAt, subject: type, data: invoiceIssued.parse(event.data) };
    case Subjects.invoiceVoided:
      return { eventId, occurredAt, subject: type, data: invoiceVoided.parse(event.data) };
    case Subjects.creditNoteIssued:
      return { eventId, occurredAt, subject: type, data: creditNoteIssued.parse(event.data) };
    default:
      throw new Error(`${type} is not a subject of the tax ledger`);
  }
}

/** The event kept in a stored source document. */
export function sourceOf(doc: Pick<SourceEventDoc, 'eventId' | 'subject' | 'occurredAt' | 'data'>): LedgerSource {
  return ledgerSource({ id: doc.eventId, type: doc.subject, occurredAt: doc.occurredAt, data: doc.data });
}

/** A consumed event's inbox document before its place in the order (`seq`) is taken. */
export type ReceivedSourceEvent = Omit<SourceEventDoc, 'version' | 'seq'>;

/** A new inbox document for a consumed event, without its `seq` (taken as it is stored). */
export function receivedSourceEventDoc(source: LedgerSource, now: string): ReceivedSourceEvent {
  return {
    id: sourceEventDocId(source.eventId),
    eventId: source.eventId,
    subject: source.subject,
    organizationId: source.data.organizationId,
    mode: source.data.mode,
    anchor: anchorOf(source),
    role: roleOf(source),
    occurredAt: source.occurredAt,
    data: source.data,
    state: 'received',
    reason: null,
    derivedTax: null,
    entryIds: [],
    receivedAt: now,
    updatedAt: now,
  };
}

/** A new inbox document for a consumed event. */
export function newSourceEventDoc(source: LedgerSource, seq: number, now: string): Omit<SourceEventDoc, 'version'> {
  return { ...receivedSourceEventDoc(source, now), seq };
}
