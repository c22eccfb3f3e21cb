import { DatabaseError } from 'pg';
import { ValidationError } from '@paymesh/core';
import { duplicateKey } from '../documents';

const UNIQUE_VIOLATION = '23505';

/**
 * Maps PostgreSQL *data* errors to domain errors: a taken unique key is DUPLICATE_KEY; every other
 * error of SQLSTATE class 22 (data exception: NUL bytes or lone surrogates in text/jsonb, numbers
 * out of range, invalid text representations, strings too long, ...) and class 23 (integrity
 * constraint) is bad input, so callers answer 4xx instead of 500. Anything else passes through.
 */
export function mapDataError(collection: string, err: unknown): unknown {
  if (!(err instanceof DatabaseError) || typeof err.code !== 'string') return err;
  if (err.code === UNIQUE_VIOLATION) return duplicateKey(collection, err, err.constraint);
  if (err.code.startsWith('22') || err.code.startsWith('23')) {
    // The server's message names the offending value class, never the statement or its data.
    return new ValidationError(`value rejected by the store: ${err.message}`, { cause: err });
  }
  return err;
}
