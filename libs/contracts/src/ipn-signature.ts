import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Outbound IPN signing (spec: Events > Outbound IPN).
 *
 * The signature is the lowercase hex HMAC-SHA256 of `<timestamp>.<rawBody>`, keyed with the site's
 * whole webhook signing secret string as UTF-8 bytes, *including* its `whsec_` prefix (nothing is
 * decoded or stripped). `timestamp` is the decimal Unix time in seconds sent in
 * `X-Signature-Timestamp`; `rawBody` is the exact body bytes sent.
 */
export const IpnHeaders = {
  timestamp: 'X-Signature-Timestamp',
  signature: 'X-Signature-HMAC-SHA256',
} as const;

/** Receivers should reject timestamps older (or further in the future) than this; 5 minutes. */
export const DEFAULT_IPN_TOLERANCE_SECONDS = 300;

/** The exact bytes an IPN signature covers: `<timestamp>.` followed by the raw body. */
function signedPayload(timestamp: number | string, rawBody: string | Uint8Array): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  return Buffer.concat([Buffer.from(`${String(timestamp)}.`, 'utf8'), body]);
}

/**
 * Signs an IPN body: hex HMAC-SHA256 over `<timestamp>.<rawBody>` with `secret` (the whole
 * `whsec_...` string) as the key.
 */
export function signIpn(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(signedPayload(timestamp, rawBody)).digest('hex');
}

/** Headers as a plain record (any key case, values possibly arrays as in node:http) or a fetch `Headers`. */
export type IpnHeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** Result of {@link verifyIpn}. */
export type IpnVerification =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'missing_headers' | 'malformed_timestamp' | 'stale_timestamp' | 'bad_signature' };

function header(headers: IpnHeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

/**
 * Verifies an IPN as a receiver would: both headers present, timestamp an integer within
 * `toleranceSeconds` of `nowSeconds`, and the signature matching `rawBody` (constant-time compare).
 *
 * @param rawBody - the body exactly as received (do not re-serialize parsed JSON).
 */
export function verifyIpn(
  secret: string,
  headers: IpnHeaderSource,
  rawBody: string | Uint8Array,
  toleranceSeconds: number = DEFAULT_IPN_TOLERANCE_SECONDS,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): IpnVerification {
  const timestamp = header(headers, IpnHeaders.timestamp);
  const signature = header(headers, IpnHeaders.signature);
  if (!timestamp || !signature) return { valid: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { valid: false, reason: 'malformed_timestamp' };
  const ts = Number(timestamp);
  if (Math.abs(nowSeconds - ts) > toleranceSeconds) return { valid: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(signIpn(secret, timestamp, rawBody), 'hex');
  const given = /^[0-9a-fA-F]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { valid: false, reason: 'bad_signature' };
  return { valid: true, timestamp: ts };
}
