import { createHash } from 'node:crypto';

/** Request header carrying the caller's key, as node reports it (lower case). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Response header of an answer replayed from an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** Longest key accepted. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** 1-255 printable ASCII characters (space to `~`). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_RULE = `1-${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;

/** Whether a header value is a usable Idempotency-Key. */
export function isIdempotencyKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * Version of the fingerprint scheme. WARNING: changing it makes every stored key answer
 * IDEMPOTENCY_KEY_REUSED to a retry of its own request until the records expire (24 h).
 */
export const FINGERPRINT_VERSION = 'idem1';

/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order are one
 * request. Arrays keep their order; `undefined` members vanish as in JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** What makes two requests with one key the same request. */
export interface RequestIdentity {
  method: string;
  /** The route as called, without the query string (`/api/v1/checkouts/<siteId>/create`). */
  path: string;
  /** The parsed JSON body, a file's bytes, or undefined for none. */
  body: unknown;
}

/**
 * `idem1:` + SHA-256 (hex) over the version, method, path and canonical body, as one JSON array (so
 * the parts cannot run into each other). A file body counts by its bytes.
 */
export function requestFingerprint(r: RequestIdentity): string {
  const body = Buffer.isBuffer(r.body)
    ? { bytesSha256: createHash('sha256').update(r.body).digest('hex') }
    : (r.body ?? null);
  const parts = JSON.stringify([FINGERPRINT_VERSION, r.method.toUpperCase(), r.path, canonicalJson(body)]);
  return `${FINGERPRINT_VERSION}:${createHash('sha256').update(parts).digest('hex')}`;
}
