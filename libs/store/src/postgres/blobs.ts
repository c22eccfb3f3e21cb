import { assertBlobKey as assertKey } from '../blob-key';
import type { Blob, BlobStore } from '../port';
import { ident, type Queryable } from './sql';

export function blobsDdl(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${ident(schema)}."_blobs" (
    key text PRIMARY KEY,
    content_type text NOT NULL,
    bytes bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now())`;
}

/** {@link BlobStore} on a `bytea` table of the service schema. */
export function postgresBlobs(db: Queryable, schema: string, ready: () => Promise<void>): BlobStore {
  const table = `${ident(schema)}."_blobs"`;
  return {
    async put(key, blob) {
      assertKey(key);
      await ready();
      await db.query(
        `INSERT INTO ${table} (key, content_type, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes, created_at = now()`,
        [key, blob.contentType, blob.bytes],
      );
    },
    async get(key): Promise<Blob | null> {
      assertKey(key);
      await ready();
      const res = await db.query<{ content_type: string; bytes: Buffer }>(
        `SELECT content_type, bytes FROM ${table} WHERE key = $1`,
        [key],
      );
      const row = res.rows[0];
      return row ? { contentType: row.content_type, bytes: row.bytes } : null;
    },
    async delete(key) {
      assertKey(key);
      await ready();
      const res = await db.query(`DELETE FROM ${table} WHERE key = $1`, [key]);
      return (res.rowCount ?? 0) > 0;
    },
  };
}
