import { randomBytes } from 'node:crypto';
import { ObjectId } from 'bson';

/** A new 24-hex document identifier. */
export function newObjectId(): string {
  return new ObjectId().toHexString();
}

export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value);
}

/** Random, URL-safe, unguessable token (never derived from document IDs). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
