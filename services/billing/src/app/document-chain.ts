import type { DocumentStore, StoredDoc, TxScope } from '@paymesh/store';
import {
  contentDigest,
  creditNoteContent,
  entryDigest,
  GENESIS_DIGEST,
  invoiceContent,
  sha256Hex,
  verifyChains,
  type ChainEntry,
  type ChainEntryBody,
  type ChainEntryType,
  type ChainSeries,
  type IntegrityExport,
  type IntegrityReport,
} from '../domain/document-chain';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, DOCUMENT_CHAIN, INVOICES } from '../store/collections';
import type { OrgKey } from './deps';

export type ChainEntryDoc = ChainEntry & StoredDoc;

export interface NewChainEntry {
  series: ChainSeries;
  type: ChainEntryType;
  documentId: string;
  number: string;
  /** The content (snapshot) digested as canonical JSON, or a file's bytes. */
  content: { json: unknown } | { bytes: Buffer; format: string };
  at: string;
}

/**
 * Appends an entry to the chain of the organization, mode and series inside the caller's store
 * transaction (so the entry commits with the document, or neither does). The chain's sequence row
 * serializes appends: concurrent issues queue on it, and a rollback gives the number back.
 */
export async function appendChainEntry(
  tx: Pick<TxScope, 'collection' | 'nextSequence'>,
  key: OrgKey,
  entry: NewChainEntry,
): Promise<ChainEntry> {
  const seq = await tx.nextSequence(`billing:chain:${key.organizationId}:${key.mode}:${entry.series}`);
  const chain = tx.collection<ChainEntryDoc>(DOCUMENT_CHAIN);
  const prev =
    seq > 1
      ? await chain.findOne({ organizationId: key.organizationId, mode: key.mode, series: entry.series, seq: seq - 1 })
      : null;
  const body: ChainEntryBody = {
    organizationId: key.organizationId,
    mode: key.mode,
    series: entry.series,
    seq,
    type: entry.type,
    documentId: entry.documentId,
    number: entry.number,
    contentDigest: 'json' in entry.content ? contentDigest(entry.content.json) : sha256Hex(entry.content.bytes),
    format: 'json' in entry.content ? null : entry.content.format,
    at: entry.at,
    prevDigest: prev?.digest ?? GENESIS_DIGEST,
  };
  const full: ChainEntry = { ...body, digest: entryDigest(body) };
  await chain.insert(full);
  return full;
}

/**
 * Appends a file's entry unless one of the same document, type and format is there already (a
 * file rendered again on each request is recorded the first time).
 */
export async function recordFileOnce(store: DocumentStore, key: OrgKey, entry: NewChainEntry): Promise<void> {
  if ('json' in entry.content) throw new Error('recordFileOnce records files');
  const format = entry.content.format;
  const known = await store.collection<ChainEntryDoc>(DOCUMENT_CHAIN).findOne({
    organizationId: key.organizationId,
    mode: key.mode,
    documentId: entry.documentId,
    type: entry.type,
    format,
  });
  if (known) return;
  await store.transaction((tx) => appendChainEntry(tx, key, entry));
}

/** Snapshot entry of an invoice just issued or corrected (its content as now stored). */
export function invoiceEntry(doc: InvoiceDoc, type: 'invoice' | 'correction', at: string): NewChainEntry {
  return {
    series: 'invoice',
    type,
    documentId: doc.id,
    number: doc.number ?? '',
    content: { json: invoiceContent(doc) },
    at,
  };
}

export function creditNoteEntry(doc: CreditNoteDoc, at: string): NewChainEntry {
  return {
    series: 'credit_note',
    type: 'credit_note',
    documentId: doc.id,
    number: doc.number,
    content: { json: creditNoteContent(doc) },
    at,
  };
}

/** The chain entries and current documents of an organization and mode, as exported. */
export async function integrityExport(store: DocumentStore, key: OrgKey, now: Date): Promise<IntegrityExport> {
  const filter = { organizationId: key.organizationId, mode: key.mode };
  const { items } = await store.collection<ChainEntryDoc>(DOCUMENT_CHAIN).find(filter, { sort: { seq: 1 } });
  const entries: ChainEntry[] = items.map(({ id: _id, version: _v, ...e }) => e);
  const ids = (series: ChainSeries) => [
    ...new Set(
      entries.filter((e) => e.series === series && e.type !== 'pdf' && e.type !== 'einvoice').map((e) => e.documentId),
    ),
  ];
  const documents: IntegrityExport['documents'] = [];
  const invoiceIds = ids('invoice');
  for (let i = 0; i < invoiceIds.length; i += 500) {
    const page = await store
      .collection<InvoiceDoc>(INVOICES)
      .find({ ...filter, id: { $in: invoiceIds.slice(i, i + 500) } });
    for (const d of page.items) documents.push({ series: 'invoice', documentId: d.id, content: invoiceContent(d) });
  }
  const noteIds = ids('credit_note');
  for (let i = 0; i < noteIds.length; i += 500) {
    const page = await store
      .collection<CreditNoteDoc>(CREDIT_NOTES)
      .find({ ...filter, id: { $in: noteIds.slice(i, i + 500) } });
    for (const d of page.items)
      documents.push({ series: 'credit_note', documentId: d.id, content: creditNoteContent(d) });
  }
  return {
    format: 'paymesh-document-integrity/1',
    organizationId: key.organizationId,
    mode: key.mode,
    exportedAt: now.toISOString(),
    entries,
    documents,
  };
}

/** `GET /documents/integrity`: verifies the organization's chains against the stored documents. */
export async function verifyIntegrity(store: DocumentStore, key: OrgKey, now: Date): Promise<IntegrityReport> {
  const data = await integrityExport(store, key, now);
  const docs = new Map(data.documents.map((d) => [`${d.series}:${d.documentId}`, d.content]));
  return verifyChains(data.entries, (series, id) => docs.get(`${series}:${id}`) ?? null);
}
