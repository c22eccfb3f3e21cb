import { DatabaseError } from 'pg';
import { UnavailableError, ValidationError } from '@paymesh/core';
import { duplicateKey } from '../documents';

const UNIQUE_VIOLATION = '23505';

/**
 * SQLSTATE classes and codes meaning the server cannot serve us right now: connection exceptions
 * (08), insufficient resources (53: too many connections, out of memory or disk), and operator
 * intervention (57P01-57P05: shutdown, crash recovery, cannot connect now, idle timeouts).
 */
function serverUnavailable(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || /^57P0[1-5]$/.test(code);
}

/** Errors of the connection itself, raised by node or the pg client rather than the server. */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable/,
  /^Client was closed and is not queryable/,
  /^Query read timeout/,
];

function connectionFailure(err: Error): boolean {
  const errno = (err as NodeJS.ErrnoException).code;
  if (typeof errno === 'string' && CONNECTION_ERRNOS.has(errno)) return true;
  return CONNECTION_MESSAGES.some((re) => re.test(err.message));
}

/**
 * Maps PostgreSQL *data* errors to domain errors: a taken unique key is DUPLICATE_KEY; every other
 * error of SQLSTATE class 22 (data exception: NUL bytes or lone surrogates in text/jsonb, numbers
 * out of range, invalid text representations, strings too long, ...) and class 23 (integrity
 * constraint) is bad input, so callers answer 4xx instead of 500. A lost, refused or exhausted
 * connection is UnavailableError (503, retry later). Anything else passes through.
 */
export function mapDataError(collection: string, err: unknown): unknown {
  if (!(err instanceof DatabaseError) || typeof err.code !== 'string') {
    // A lost or refused connection is a dependency outage (503, retryable), not an internal error.
    if (err instanceof Error && !(err instanceof DatabaseError) && connectionFailure(err)) {
      return new UnavailableError('datastore unavailable', { cause: err });
    }
    return err;
  }
  if (serverUnavailable(err.code)) return new UnavailableError('datastore unavailable', { cause: err });
  if (err.code === UNIQUE_VIOLATION) return duplicateKey(collection, err, err.constraint);
  if (err.code.startsWith('22') || err.code.startsWith('23')) {
    // The server's message names the offending value class, never the statement or its data.
    return new ValidationError(`value rejected by the store: ${err.message}`, { cause: err });
  }
  return err;
}
