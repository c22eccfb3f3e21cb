import { objectId as coreObjectId } from '@paymesh/core';
import { z } from 'zod';

/**
 * Building blocks of the gateways' request schemas. Whatever passes them is storable (no NUL,
 * no unpaired surrogate: PostgreSQL rejects both in text and JSONB) and fits the gRPC types the
 * gateways forward it in (int32 fields, int64 money within the safe-integer range). The owning
 * services still apply their business rules; these bounds only keep nonsense out at the edge.
 */

/** NUL, or a UTF-16 surrogate that is not half of a pair. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** True when the string can be stored and sent as UTF-8 as it is. */
export function isCleanText(value: string): boolean {
  return !UNSAFE_TEXT.test(value);
}

/** Largest amount in minor units (just under 10^12, e.g. EUR 9 999 999 999.99); int64 on the wire. */
export const MONEY_MAX = 999_999_999_999;
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
/** Longest URL accepted anywhere (return, cancel, IPN, logo, site URLs). */
export const URL_MAX = 2048;
/** Longest e-mail address (RFC 5321 path limit). */
export const EMAIL_MAX = 254;

/** Free text of at most `max` characters (at least `min`), without NUL or unpaired surrogates. */
export function text(max: number, min = 0) {
  return z.string().min(min).max(max).refine(isCleanText, UNSAFE_TEXT_MESSAGE);
}

/** A required, trimmed name (1..max characters after trimming). */
export function name(max = 200) {
  return z.string().trim().min(1).max(max).refine(isCleanText, UNSAFE_TEXT_MESSAGE);
}

/** A 24-hex document identifier. */
export const objectId = (what = 'id') => coreObjectId(what);

/** ISO 3166-1 alpha-2 shape (either case, upper-cased); the owning service checks the code list. */
export const countryCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code (e.g. DE)')
  .transform((s) => s.toUpperCase());

/** ISO 4217 shape (either case); the owning service checks it is an active currency. */
export const currencyCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code (e.g. EUR)');

/** An amount in minor units: an integer within ±MONEY_MAX (sign rules are the owning service's). */
export const money = z
  .number()
  .int('must be an integer amount in minor units')
  .min(-MONEY_MAX, `must be at least -${MONEY_MAX}`)
  .max(MONEY_MAX, `must be at most ${MONEY_MAX}`);

/** An integer that fits a gRPC int32 field. */
export const int32 = z.number().int().min(INT32_MIN).max(INT32_MAX);

/** A quantity: an int32 (the owning service narrows it to its own range). */
export const quantity = int32;

/** A percentage such as a VAT rate: a finite number in a sane band (the service checks 0..100). */
export const percentage = z.number().finite().min(-1000).max(1000);

/** Transaction status codes of the interface (-2..4). */
export const transactionStatus = z.number().int().min(-2).max(4);

/** An absolute http(s) URL of at most `max` characters. */
export function httpUrl(max = URL_MAX) {
  return text(max, 1).refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');
}

/** An e-mail address (trimmed). */
export const email = z.string().trim().max(EMAIL_MAX).email().refine(isCleanText, UNSAFE_TEXT_MESSAGE);

/** An RFC 3339 timestamp with an offset (`2030-01-31T12:00:00Z`). */
export const timestamp = z
  .string()
  .max(64)
  .datetime({ offset: true, message: 'must be an RFC 3339 timestamp such as 2030-01-31T12:00:00Z' });

/** A date or timestamp query bound; its format is checked where it is parsed. */
export const dateBound = text(64);

/** String-to-string metadata: at most `maxKeys` keys of 1..40 characters, values of at most 500. */
export function metadata(maxKeys = 50) {
  return z
    .record(text(40, 1), text(500))
    .refine((m) => Object.keys(m).length <= maxKeys, `may have at most ${maxKeys} keys`);
}

/** Page number of a list: 1..1 000 000 (an int32 on the wire). */
export const pageNumber = z.coerce.number().int().min(1).max(1_000_000).default(1);
