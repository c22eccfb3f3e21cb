import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE, ErrorCode, isErrorCode } from './error-codes';
import {
  ConflictError,
  DomainError,
  UnavailableError,
  ERROR_KINDS,
  GrpcCode,
  kindFromGrpcCode,
  NotFoundError,
  toHttpError,
  ValidationError,
  type ErrorKind,
} from './errors';

describe('error catalogue', () => {
  it('maps every kind one way to HTTP and gRPC, and back from gRPC', () => {
    const expected: Record<ErrorKind, [number, number]> = {
      validation: [400, GrpcCode.INVALID_ARGUMENT],
      unprocessable: [422, GrpcCode.FAILED_PRECONDITION],
      unauthenticated: [401, GrpcCode.UNAUTHENTICATED],
      forbidden: [403, GrpcCode.PERMISSION_DENIED],
      not_found: [404, GrpcCode.NOT_FOUND],
      conflict: [409, GrpcCode.ALREADY_EXISTS],
      rate_limited: [429, GrpcCode.RESOURCE_EXHAUSTED],
      not_supported: [501, GrpcCode.UNIMPLEMENTED],
      unavailable: [503, GrpcCode.UNAVAILABLE],
      internal: [500, GrpcCode.INTERNAL],
    };
    for (const [kind, [http, grpc]] of Object.entries(expected) as [ErrorKind, [number, number]][]) {
      expect(ERROR_KINDS[kind]).toEqual({ http, grpc });
      expect(kindFromGrpcCode(grpc)).toBe(kind);
    }
  });

  it('puts domain errors in the envelope and adds code and requestId only for coded errors', () => {
    expect(toHttpError(new NotFoundError('site not found'), 'r-1')).toEqual({
      status: 404,
      body: { error: 'site not found' },
    });
    expect(toHttpError(new ConflictError('blocked', { code: 'CHECKOUT_BLOCKED_BY_DISPUTE' }), 'r-2')).toEqual({
      status: 409,
      body: { error: 'blocked', code: 'CHECKOUT_BLOCKED_BY_DISPUTE', requestId: 'r-2' },
    });
    expect(toHttpError(new ValidationError('amount: required', { field: 'amount' })).status).toBe(400);
  });

  it('hides the message of unknown errors behind a 500', () => {
    const out = toHttpError(new Error('password=hunter2 leaked'), 'r-3');
    expect(out.status).toBe(500);
    expect(JSON.stringify(out.body)).not.toContain('hunter2');
  });
});

describe('error code catalogue', () => {
  it('fixes the kind (HTTP and gRPC status) of a coded error, whichever class throws it', () => {
    const err = new ValidationError('oops', { code: ErrorCode.CHECKOUT_EXPIRED });
    expect(err.kind).toBe('conflict');
    expect(err.httpStatus).toBe(409);
    expect(err.grpcCode).toBe(GrpcCode.ALREADY_EXISTS);
    expect(ErrorCode.DUPLICATE_KEY).toBe('DUPLICATE_KEY');
    expect(isErrorCode('DUPLICATE_KEY')).toBe(true);
    expect(isErrorCode('NOPE')).toBe(false);
  });

  it('is documented code by code in docs/errors.md with the same statuses', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      const { http, grpc } = ERROR_KINDS[entry.kind];
      const grpcName = Object.entries(GrpcCode).find(([, v]) => v === grpc)?.[0];
      const row = doc.split('\n').find((l) => l.startsWith(`| ${code} |`));
      expect(row, `${code} missing from docs/errors.md`).toBeDefined();
      expect(row).toContain(`| ${http} | ${grpcName} |`);
    }
  });
});

describe('internal and transport errors', () => {
  it('reach clients only as "internal error" with the request ID', () => {
    const serialization = new DomainError('internal', 'Request message serialization failure: invalid int32');
    expect(toHttpError(serialization, 'r-4')).toEqual({
      status: 500,
      body: { error: 'internal error', requestId: 'r-4' },
    });
    const transport = new UnavailableError('checkout unavailable: connect ECONNREFUSED 10.0.0.7:50051');
    expect(toHttpError(transport, 'r-5')).toEqual({ status: 503, body: { error: 'internal error', requestId: 'r-5' } });
    expect(toHttpError(new Error('boom'), 'r-6')).toEqual({
      status: 500,
      body: { error: 'internal error', requestId: 'r-6' },
    });
  });

  it('keeps the message of a deliberate, coded unavailable answer', () => {
    const coded = new UnavailableError('retry shortly', { code: ErrorCode.PAYMENT_RETIRE_PENDING });
    expect(toHttpError(coded, 'r-7')).toEqual({
      status: 503,
      body: { error: 'retry shortly', code: 'PAYMENT_RETIRE_PENDING', requestId: 'r-7' },
    });
  });
});
