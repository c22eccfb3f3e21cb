import { z } from 'zod';

const series = z.enum(['invoice', 'credit_note']);
const entryType = z.enum(['invoice', 'credit_note', 'correction', 'pdf', 'einvoice']);
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** The first place where a document chain or a stored document does not match (GET /documents/integrity). */
export const documentIntegrityBrokenLink = z.object({
  series,
  seq: z.number().int(),
  documentId: z.string(),
  number: z.string(),
  type: entryType,
  reason: z.enum([
    'entry_altered',
    'entry_missing',
    'previous_digest_mismatch',
    'document_altered',
    'document_missing',
    'file_altered',
  ]),
  detail: z.string(),
});

export const documentIntegrityReport = z.object({
  ok: z.boolean(),
  entries: z.number().int().describe('Chain entries checked'),
  documents: z.number().int().describe('Issued invoices and credit notes compared with their latest recorded snapshot'),
  files: z.number().int().describe('Stored files compared with their recorded digest'),
  firstBroken: documentIntegrityBrokenLink.nullable(),
});
export type DocumentIntegrityReport = z.infer<typeof documentIntegrityReport>;

export const documentChainEntry = z.object({
  organizationId: z.string(),
  mode: z.enum(['live', 'test']),
  series,
  seq: z.number().int(),
  type: entryType,
  documentId: z.string(),
  number: z.string(),
  contentDigest: hex64,
  format: z.string().nullable(),
  at: z.string(),
  prevDigest: hex64,
  digest: hex64,
});

/** The chains and current documents of an organization and mode, for `pnpm verify-integrity`. */
export const documentIntegrityExport = z.object({
  format: z.literal('paymesh-document-integrity/1'),
  organizationId: z.string(),
  mode: z.enum(['live', 'test']),
  exportedAt: z.string(),
  entries: z.array(documentChainEntry),
  documents: z.array(z.object({ series, documentId: z.string(), content: z.unknown() })),
});
