import { ValidationError } from '@paymesh/core';

/** Longest blob key, in UTF-16 code units (both adapters). */
export const MAX_BLOB_KEY_LENGTH = 512;

/** Throws ValidationError unless `key` is a usable blob key (1 to 512 characters). */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_BLOB_KEY_LENGTH) {
    throw new ValidationError(`blob key must be 1 to ${MAX_BLOB_KEY_LENGTH} characters`);
  }
}
