import { randomBytes } from 'node:crypto';
import { ObjectId } from 'bson';

/** A new 24-hex document identifier. */
export function newObjectId(): string {
  return new ObjectId().toHexString();
}

/** Random, URL-safe, unguessable token (never derived from document IDs). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * A 24-hex identifier in ObjectId layout (4-byte creation time, then 8 random bytes) for documents
 * whose IDs reach the public or act as handles: unlike a plain ObjectId, whose tail is a
 * per-process value and a counter, neighbours cannot be derived from one known ID.
 */
export function newUnguessableObjectId(at: Date = new Date()): string {
  const time = Buffer.alloc(4);
  time.writeUInt32BE(Math.floor(at.getTime() / 1000) >>> 0);
  return time.toString('hex') + randomBytes(8).toString('hex');
}
