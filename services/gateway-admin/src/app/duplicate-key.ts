import { ConflictError, ErrorCode } from '@paymesh/core';

/**
 * `work`, with a taken unique key reported as `message` (409). Wraps a whole store transaction:
 * the store may send a transaction's writes when its function returns, so a duplicate key can
 * surface from `transaction()` rather than from the insert that caused it.
 */
export async function withDuplicateAs<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) throw new ConflictError(message);
    throw err;
  }
}
