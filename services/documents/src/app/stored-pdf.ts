import type { DocumentStore, StoredDoc } from '@paymesh/store';
import { ConflictError, ValidationError, requireObjectId } from '@paymesh/core';
import type { DocumentKind, DocumentView } from '@paymesh/contracts';
import { DOCUMENTS } from '../store/collections';
import type { PdfRenderer } from '../render/pdf-renderer';
import { renderDocumentPdf } from './render-document';

/** A rendered PDF's record; the bytes are in the blob store under `blobKey`, never in this JSON. */
export interface DocumentDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  kind: DocumentKind;
  documentId: string;
  snapshotVersion: string;
  blobKey: string;
  size: number;
  renderedAt: string;
}

export interface StoredPdfRequest {
  organizationId: string;
  mode: 'live' | 'test';
  documentId: string;
  snapshotVersion: string;
  regenerate: boolean;
  /** Render only and store nothing (a preview of a document that does not exist). */
  ephemeral?: boolean;
  view: DocumentView;
}

const VERSION = /^[A-Za-z0-9._-]{1,64}$/;

/** The PDF of one snapshot of a document: rendered and stored on first request (or when asked again), then served from storage. */
export async function storedPdf(
  store: DocumentStore,
  renderer: PdfRenderer,
  req: StoredPdfRequest,
): Promise<{ pdf: Buffer; rendered: boolean }> {
  requireObjectId(req.organizationId, 'organizationId');
  requireObjectId(req.documentId, 'documentId');
  if (req.ephemeral) return { pdf: await renderDocumentPdf(renderer, req.view), rendered: true };
  if (!VERSION.test(req.snapshotVersion))
    throw new ValidationError('snapshotVersion must be 1-64 letters, digits, dot, dash or underscore', {
      field: 'snapshotVersion',
    });
  const key = {
    organizationId: req.organizationId,
    mode: req.mode,
    kind: req.view.kind,
    documentId: req.documentId,
    snapshotVersion: req.snapshotVersion,
  };
  const docs = store.collection<DocumentDoc>(DOCUMENTS);
  const baseKey = `${key.organizationId}/${key.mode}/${key.kind}/${key.documentId}/${key.snapshotVersion}`;
  const existing = await docs.findOne(key);
  // An issued document's PDF is never overwritten (retention, § 147 AO): one rendered again is
  // stored beside it, under a key of its own, and the record points at the newest.
  const kept = existing && (key.kind === 'invoice' || key.kind === 'credit_note');
  const blobKey = kept ? `${baseKey}/r${Date.now().toString(36)}` : baseKey;
  if (existing && !req.regenerate) {
    const blob = await store.blobs.get(existing.blobKey);
    if (blob) return { pdf: blob.bytes, rendered: false };
  }
  const pdf = await renderDocumentPdf(renderer, req.view);
  // Bytes first, record second: a record always points at stored bytes.
  await store.blobs.put(blobKey, { bytes: pdf, contentType: 'application/pdf' });
  const record = { ...key, blobKey, size: pdf.length, renderedAt: new Date().toISOString() };
  if (existing) await docs.update(existing.id, (cur) => ({ ...cur, ...record }), 3, existing);
  else
    await docs.insert(record).catch((err: unknown) => {
      // Rendered twice at once: the other record points at the same key, whose bytes are a PDF of the same snapshot.
      if (err instanceof ConflictError) return;
      throw err;
    });
  return { pdf, rendered: true };
}
