import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DocumentStore } from '../src';

/** Binary objects by key (part of the store contract: PostgreSQL `bytea`, MongoDB GridFS). */
export function blobContract(storeOf: () => DocumentStore): void {
  describe('blob store', () => {
    it('keeps binary bytes exactly across several chunks, replaces by key and deletes', async () => {
      const blobs = storeOf().blobs;
      // Over 2 GridFS chunks (255 KiB each), with bytes that are not valid UTF-8.
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(600_000), Buffer.from([0, 255, 0])]);
      await blobs.put('org/live/invoice/1/v1', { bytes, contentType: 'application/pdf' });
      const back = await blobs.get('org/live/invoice/1/v1');
      expect(back?.contentType).toBe('application/pdf');
      expect(back?.bytes.equals(bytes)).toBe(true);

      await blobs.put('org/live/invoice/1/v1', { bytes: Buffer.from('second'), contentType: 'text/plain' });
      expect(await blobs.get('org/live/invoice/1/v1')).toEqual({
        bytes: Buffer.from('second'),
        contentType: 'text/plain',
      });

      expect(await blobs.get('org/live/invoice/2/v1')).toBeNull();
      expect(await blobs.delete('org/live/invoice/1/v1')).toBe(true);
      expect(await blobs.delete('org/live/invoice/1/v1')).toBe(false);
      expect(await blobs.get('org/live/invoice/1/v1')).toBeNull();
    });

    it('keeps an empty blob, and keys apart', async () => {
      const blobs = storeOf().blobs;
      await blobs.put('empty', { bytes: Buffer.alloc(0), contentType: 'application/octet-stream' });
      await blobs.put('empty/2', { bytes: Buffer.from('x'), contentType: 'text/plain' });
      expect(await blobs.get('empty')).toEqual({ bytes: Buffer.alloc(0), contentType: 'application/octet-stream' });
      expect((await blobs.get('empty/2'))?.bytes.toString()).toBe('x');
    });

    it('concurrent puts of one key leave exactly one of them, whole', async () => {
      const blobs = storeOf().blobs;
      const key = `race/${randomBytes(4).toString('hex')}`;
      const versions = Array.from({ length: 5 }, (_, i) =>
        Buffer.concat([Buffer.from(`v${i}:`), randomBytes(300_000)]),
      );
      await Promise.all(versions.map((bytes) => blobs.put(key, { bytes, contentType: 'application/pdf' })));
      const back = await blobs.get(key);
      expect(versions.some((v) => back?.bytes.equals(v))).toBe(true);
      expect(await blobs.delete(key)).toBe(true);
      // Every version went with the delete (none was left behind by the race).
      expect(await blobs.get(key)).toBeNull();
    });

    it('refuses an empty or over-long key', async () => {
      const blobs = storeOf().blobs;
      await expect(blobs.put('', { bytes: Buffer.from('x'), contentType: 'text/plain' })).rejects.toThrow(/blob key/);
      await expect(blobs.get('k'.repeat(513))).rejects.toThrow(/blob key/);
    });
  });
}
