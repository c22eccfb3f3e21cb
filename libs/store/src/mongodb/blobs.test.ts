import { describe, expect, it } from 'vitest';
import { ObjectId } from 'mongodb';
import { ValidationError } from '@paymesh/core';
import { assertBlobKey } from '../blob-key';
import { contentTypeOf, newerFirst, supersededBy, type BlobFile } from './blobs';

const file = (id: string, at: string, contentType?: unknown): BlobFile => ({
  _id: new ObjectId(id),
  uploadDate: new Date(at),
  ...(contentType !== undefined ? { metadata: { contentType } } : {}),
});

const A = file('000000000000000000000001', '2026-01-01T10:00:00.000Z');
const B = file('000000000000000000000002', '2026-01-01T10:00:01.000Z');
// Same upload millisecond as B, larger id: ordered after B by the tie-break.
const C = file('000000000000000000000003', '2026-01-01T10:00:01.000Z');

describe('GridFS blob versions', () => {
  it('orders versions newest first, ties by the larger id', () => {
    expect([A, C, B].sort(newerFirst).map((f) => f._id.toHexString().slice(-1))).toEqual(['3', '2', '1']);
    expect([B, A, C].sort(newerFirst)).toEqual([C, B, A]);
    expect(newerFirst(B, B)).toBe(0);
  });

  it('a finished upload replaces only the versions ordered before it', () => {
    expect(supersededBy([A, B, C], C)).toEqual([A, B]);
    // Two racing puts: the older one deletes nothing newer, so the newer one survives both cleanups.
    expect(supersededBy([A, B, C], B)).toEqual([A]);
    expect(supersededBy([B, C], B)).toEqual([]);
    expect(supersededBy([A], A)).toEqual([]);
  });

  it('reads the content type from the metadata, with a fallback for foreign files', () => {
    expect(contentTypeOf(file('000000000000000000000004', '2026-01-01T00:00:00Z', 'application/pdf'))).toBe(
      'application/pdf',
    );
    expect(contentTypeOf(file('000000000000000000000005', '2026-01-01T00:00:00Z'))).toBe('application/octet-stream');
    expect(contentTypeOf(file('000000000000000000000006', '2026-01-01T00:00:00Z', 42))).toBe(
      'application/octet-stream',
    );
  });

  it('accepts keys of 1 to 512 characters', () => {
    expect(() => assertBlobKey('org/live/invoice/1/v1')).not.toThrow();
    expect(() => assertBlobKey('k'.repeat(512))).not.toThrow();
    expect(() => assertBlobKey('')).toThrow(ValidationError);
    expect(() => assertBlobKey('k'.repeat(513))).toThrow(/1 to 512/);
  });
});
