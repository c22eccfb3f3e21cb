import { createHash } from 'node:crypto';
import { canonical } from './client-history';

/**
 * Fingerprint of a create request kept with its `Idempotency-Key`: versioned SHA-256 over the
 * operation and the validated body as canonical JSON (keys sorted), so the same body in another key
 * order or spacing is the same request. WARNING: changing the version or the parts makes every
 * stored key look reused with another body.
 */
export function requestFingerprint(operation: string, body: unknown): string {
  // Through JSON first: an absent field and one set to undefined are the same request.
  const plain: unknown = JSON.parse(JSON.stringify(body ?? null));
  return `v1:${createHash('sha256')
    .update(canonical(['v1', operation, plain]))
    .digest('hex')}`;
}
