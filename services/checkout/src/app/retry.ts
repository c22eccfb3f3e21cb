import { ConflictError, ErrorCode } from '@paymesh/core';

/**
 * Re-runs a read-then-compare-and-set transaction when another writer moved the document in
 * between (VERSION_CONFLICT); other errors pass through.
 */
export async function retryOnVersionConflict<R>(fn: () => Promise<R>, attempts = 5): Promise<R> {
  for (let i = 1; ; i += 1) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.VERSION_CONFLICT) || i >= attempts) throw err;
    }
  }
}
