import { DatabaseError } from 'pg';
import { describe, expect, it } from 'vitest';
import { ConflictError, UnavailableError, ValidationError } from '@paymesh/core';
import { mapDataError } from './errors';

function pgError(code: string, message = 'server said no'): DatabaseError {
  const err = new DatabaseError(message, message.length, 'error');
  err.code = code;
  return err;
}

function errno(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('mapDataError', () => {
  it('keeps a taken unique key a DUPLICATE_KEY conflict', () => {
    const mapped = mapDataError('sites', pgError('23505'));
    expect(mapped).toBeInstanceOf(ConflictError);
    expect((mapped as ConflictError).code).toBe('DUPLICATE_KEY');
  });

  it('makes data exceptions (NUL in text, out-of-range numbers) validation errors', () => {
    expect(mapDataError('sites', pgError('22P05', 'unsupported Unicode escape sequence'))).toBeInstanceOf(
      ValidationError,
    );
    expect(mapDataError('sites', pgError('22003', 'numeric field overflow'))).toBeInstanceOf(ValidationError);
  });

  it('makes a lost, refused or exhausted datastore a 503-class outage, not an internal error', () => {
    for (const err of [
      pgError('53300', 'sorry, too many clients already'),
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('08006', 'connection failure'),
      errno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      errno('ECONNRESET', 'read ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      const mapped = mapDataError('sites', err);
      expect(mapped, err.message).toBeInstanceOf(UnavailableError);
      // The client sees no address or server text.
      expect((mapped as Error).message).toBe('datastore unavailable');
    }
  });

  it('passes other errors through unchanged', () => {
    const syntax = pgError('42601', 'syntax error');
    expect(mapDataError('sites', syntax)).toBe(syntax);
    const plain = new Error('something else');
    expect(mapDataError('sites', plain)).toBe(plain);
  });
});
