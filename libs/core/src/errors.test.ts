import { describe, expect, it } from 'vitest';
import {
  ConflictError,
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
    expect(toHttpError(new NotFoundError('site not found'), 'r-1')).toEqual({ status: 404, body: { error: 'site not found' } });
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
