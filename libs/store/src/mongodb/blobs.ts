import {
  GridFSBucket,
  MongoGridFSChunkError,
  MongoRuntimeError,
  type Db,
  type GridFSFile,
  type ObjectId,
} from 'mongodb';
import { assertBlobKey } from '../blob-key';
import type { Blob, BlobStore } from '../port';

/** GridFS bucket of the service database: collections `_blobs.files` and `_blobs.chunks`. */
export const BLOB_BUCKET = '_blobs';
/** GridFS chunk size: 255 KiB, the driver's default, under the 16 MiB document limit with room to spare. */
const CHUNK_SIZE_BYTES = 255 * 1024;
/** Content type of a file whose metadata lacks one (never written by this adapter). */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** What of a GridFS file the adapter orders and reads by. */
export type BlobFile = Pick<GridFSFile, '_id' | 'uploadDate' | 'metadata'>;

/**
 * Orders versions of one key: later upload first, ties by the larger ObjectId. Every reader and
 * writer uses this one total order, so they agree on which version is current.
 */
export function newerFirst(a: BlobFile, b: BlobFile): number {
  const byDate = b.uploadDate.getTime() - a.uploadDate.getTime();
  if (byDate !== 0) return byDate;
  const ida = a._id.toHexString();
  const idb = b._id.toHexString();
  return ida === idb ? 0 : ida < idb ? 1 : -1;
}

/**
 * The versions a completed upload replaces: those ordered before it. Never a newer one, so two
 * concurrent puts of a key leave the later one (rather than deleting each other's file).
 */
export function supersededBy(files: readonly BlobFile[], mine: BlobFile): BlobFile[] {
  return files.filter((f) => !f._id.equals(mine._id) && newerFirst(mine, f) < 0);
}

/** The content type kept in a file's metadata. */
export function contentTypeOf(file: Pick<GridFSFile, 'metadata'>): string {
  const ct = (file.metadata as { contentType?: unknown } | undefined)?.contentType;
  return typeof ct === 'string' && ct.length > 0 ? ct : FALLBACK_CONTENT_TYPE;
}

/** A file removed by a concurrent delete or put (the driver's "file not found"). */
function isFileGone(err: unknown): boolean {
  return err instanceof MongoRuntimeError && /FileNotFound|file not found/i.test(err.message);
}

/**
 * {@link BlobStore} on GridFS. One GridFS file per stored version, its filename the key and its
 * content type in `metadata`. `put` uploads a new file and then removes the versions it replaces;
 * GridFS writes the file document after the last chunk, so a reader never sees a half-written
 * blob, and a put that dies mid-way leaves only orphan chunks (never a visible file). Readers take
 * the newest version, so a put that dies after its upload but before the cleanup still answers
 * the new bytes, and the next put or delete of the key removes the leftovers.
 */
export function mongoBlobs(db: Db, ready: () => Promise<void>): BlobStore {
  const bucket = new GridFSBucket(db, { bucketName: BLOB_BUCKET, chunkSizeBytes: CHUNK_SIZE_BYTES });
  const versions = async (key: string): Promise<BlobFile[]> =>
    (await bucket.find({ filename: key }, { projection: { _id: 1, uploadDate: 1, metadata: 1 } }).toArray()).sort(
      newerFirst,
    );
  /** Deletes the files, ignoring those a concurrent call removed first; answers how many this call removed. */
  const remove = async (files: readonly BlobFile[]): Promise<number> => {
    let removed = 0;
    for (const f of files) {
      try {
        await bucket.delete(f._id as ObjectId);
        removed += 1;
      } catch (err) {
        if (!isFileGone(err)) throw err;
      }
    }
    return removed;
  };
  const download = async (id: ObjectId): Promise<Buffer> => {
    const parts: Buffer[] = [];
    for await (const chunk of bucket.openDownloadStream(id)) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  };

  return {
    async put(key, blob) {
      assertBlobKey(key);
      await ready();
      const upload = bucket.openUploadStream(key, { metadata: { contentType: blob.contentType } });
      await new Promise<void>((resolve, reject) => {
        upload.once('error', reject);
        upload.once('finish', () => resolve());
        upload.end(blob.bytes);
      });
      const mine = upload.gridFSFile;
      if (!mine) throw new Error(`GridFS upload of blob "${key}" finished without its file document`);
      await remove(supersededBy(await versions(key), mine));
    },
    async get(key): Promise<Blob | null> {
      assertBlobKey(key);
      await ready();
      // The newest version; if a concurrent put or delete removes it while it is read (GridFS
      // deletes the file document, then its chunks), look again. Missing chunks of a file that is
      // still there are damage, and thrown.
      for (let attempt = 1; ; attempt++) {
        const current = (await versions(key))[0];
        if (!current) return null;
        try {
          return { bytes: await download(current._id as ObjectId), contentType: contentTypeOf(current) };
        } catch (err) {
          const removedMeanwhile =
            isFileGone(err) ||
            (err instanceof MongoGridFSChunkError &&
              (await bucket.find({ _id: current._id }).limit(1).toArray()).length === 0);
          if (!removedMeanwhile || attempt >= 3) throw err;
        }
      }
    },
    async delete(key) {
      assertBlobKey(key);
      await ready();
      return (await remove(await versions(key))) > 0;
    },
  };
}
