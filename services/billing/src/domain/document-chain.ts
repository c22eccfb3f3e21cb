import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CreditNoteDoc, InvoiceDoc } from './invoice';

/**
 * Tamper evidence of issued documents (GoBD "Unveränderbarkeit"): every issued invoice, credit
 * note, snapshot correction and rendered file gets an entry in the hash chain of its organization,
 * mode and number series. An entry holds the SHA-256 of the content (the stored legal snapshot as
 * canonical JSON, RFC 8785, or the file's bytes) and of itself with the previous entry's digest, so
 * changing a stored snapshot, an entry, or removing or reordering entries breaks the chain at that
 * place. Pure functions: the service and the offline verifier (`pnpm verify-integrity`) share them.
 */

/** Number series of a chain: invoices (with their corrections and files) and credit notes (with their files). */
export type ChainSeries = 'invoice' | 'credit_note';
/** What an entry records: a document issued, a snapshot corrected, a file rendered. */
export type ChainEntryType = 'invoice' | 'credit_note' | 'correction' | 'pdf' | 'einvoice';

/** The fields of an entry covered by its digest. */
export interface ChainEntryBody {
  organizationId: string;
  mode: 'live' | 'test';
  series: ChainSeries;
  /** 1, 2, … within the chain, without gaps. */
  seq: number;
  type: ChainEntryType;
  documentId: string;
  number: string;
  /** SHA-256 (hex) of the content: the canonical snapshot, or the file's bytes. */
  contentDigest: string;
  /** For files: the file's format (`pdf`, `xrechnung-cii`, …); null for snapshots. */
  format: string | null;
  at: string;
  /** The previous entry's digest; 64 zeros for the first entry. */
  prevDigest: string;
}

export interface ChainEntry extends ChainEntryBody {
  /** SHA-256 (hex) of the canonical entry body. */
  digest: string;
}

export const GENESIS_DIGEST = '0'.repeat(64);

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Canonical JSON (RFC 8785): the same bytes for the same data, whatever the key order stored. */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value cannot be serialized as canonical JSON');
  return out;
}

/** The legal content of an issued invoice covered by the chain: number, dates and frozen snapshot. */
export function invoiceContent(doc: Pick<InvoiceDoc, 'number' | 'issueDate' | 'dueDate' | 'snapshot'>): unknown {
  return { number: doc.number, issueDate: doc.issueDate, dueDate: doc.dueDate, snapshot: doc.snapshot };
}

/** The legal content of a credit note: everything but its id, version and e-mail sends. */
export function creditNoteContent(doc: CreditNoteDoc): unknown {
  const { id: _id, version: _version, emails: _emails, ...content } = doc;
  return content;
}

export function contentDigest(content: unknown): string {
  return sha256Hex(canonicalJson(content));
}

export function entryDigest(body: ChainEntryBody): string {
  return sha256Hex(
    canonicalJson({
      organizationId: body.organizationId,
      mode: body.mode,
      series: body.series,
      seq: body.seq,
      type: body.type,
      documentId: body.documentId,
      number: body.number,
      contentDigest: body.contentDigest,
      format: body.format,
      at: body.at,
      prevDigest: body.prevDigest,
    }),
  );
}

/** The first place where a chain or a document does not match. */
export interface BrokenLink {
  series: ChainSeries;
  seq: number;
  documentId: string;
  number: string;
  type: ChainEntryType;
  reason:
    | 'entry_altered'
    | 'entry_missing'
    | 'previous_digest_mismatch'
    | 'document_altered'
    | 'document_missing'
    | 'file_altered';
  detail: string;
}

export interface IntegrityReport {
  ok: boolean;
  entries: number;
  documents: number;
  files: number;
  /** The first broken link, in chain order (invoice series first), or null. */
  firstBroken: BrokenLink | null;
}

/** A stored document's current content, as the verifier sees it (null: the document is gone). */
export type ContentLookup = (series: ChainSeries, documentId: string) => unknown;
/** A stored file's bytes by its entry (undefined: not checked, null: gone). */
export type FileLookup = (entry: ChainEntry) => Buffer | null | undefined;

/**
 * Verifies the chains (each entry's digest, the links between entries, no gaps) and that each
 * document's current content is the one its latest snapshot entry (issue or correction) recorded,
 * and each file given is the one its entry recorded. Entries in any order; chains per series.
 */
export function verifyChains(
  entries: readonly ChainEntry[],
  content: ContentLookup,
  file?: FileLookup,
): IntegrityReport {
  const bySeries = new Map<ChainSeries, ChainEntry[]>();
  for (const e of entries) {
    const list = bySeries.get(e.series) ?? [];
    list.push(e);
    bySeries.set(e.series, list);
  }
  let firstBroken: BrokenLink | null = null;
  let files = 0;
  const documents = new Set<string>();
  const broken = (e: ChainEntry, reason: BrokenLink['reason'], detail: string) => {
    firstBroken ??= {
      series: e.series,
      seq: e.seq,
      documentId: e.documentId,
      number: e.number,
      type: e.type,
      reason,
      detail,
    };
  };
  for (const series of ['invoice', 'credit_note'] as const) {
    const chain = [...(bySeries.get(series) ?? [])].sort((a, b) => a.seq - b.seq);
    /** Latest snapshot entry per document, checked after the chain. */
    const latest = new Map<string, ChainEntry>();
    let prev = GENESIS_DIGEST;
    for (const [i, e] of chain.entries()) {
      if (firstBroken) break;
      if (e.seq !== i + 1) broken(e, 'entry_missing', `entry ${i + 1} of the ${series} chain is missing`);
      else if (entryDigest(e) !== e.digest) broken(e, 'entry_altered', `entry ${e.seq} does not match its digest`);
      else if (e.prevDigest !== prev)
        broken(e, 'previous_digest_mismatch', `entry ${e.seq} does not name entry ${e.seq - 1}'s digest`);
      prev = e.digest;
      if (e.type === 'pdf' || e.type === 'einvoice') {
        const bytes = file?.(e);
        if (bytes === undefined) continue;
        files += 1;
        if (bytes !== null && sha256Hex(bytes) !== e.contentDigest)
          broken(
            e,
            'file_altered',
            `the stored ${e.format ?? e.type} file of ${e.number} differs from the one recorded`,
          );
      } else latest.set(e.documentId, e);
    }
    for (const e of [...latest.values()].sort((a, b) => a.seq - b.seq)) {
      if (firstBroken) break;
      documents.add(`${series}:${e.documentId}`);
      const current = content(series, e.documentId);
      if (current === null || current === undefined)
        broken(e, 'document_missing', `${series} ${e.number} (${e.documentId}) is no longer stored`);
      else if (contentDigest(current) !== e.contentDigest)
        broken(
          e,
          'document_altered',
          `the stored snapshot of ${series} ${e.number} (${e.documentId}) differs from the one recorded at seq ${e.seq}`,
        );
    }
  }
  return { ok: firstBroken === null, entries: entries.length, documents: documents.size, files, firstBroken };
}

/** What `GET /documents/integrity/export` answers and `pnpm verify-integrity` reads. */
export interface IntegrityExport {
  format: 'paymesh-document-integrity/1';
  organizationId: string;
  mode: 'live' | 'test';
  exportedAt: string;
  entries: ChainEntry[];
  /** Current content of every document with an entry: series, id and the content its digest covers. */
  documents: Array<{ series: ChainSeries; documentId: string; content: unknown }>;
}

/** Verifies an export offline (no store, no keys needed: sealed values are digested as stored). */
export function verifyExport(data: IntegrityExport): IntegrityReport {
  const docs = new Map(data.documents.map((d) => [`${d.series}:${d.documentId}`, d.content]));
  return verifyChains(data.entries, (series, id) => docs.get(`${series}:${id}`) ?? null);
}
