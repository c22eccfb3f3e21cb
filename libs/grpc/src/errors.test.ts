import { describe, expect, it } from 'vitest';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { ConflictError, DomainError, ValidationError } from '@paymesh/core';
import { fromGrpcError, toGrpcError } from './errors';

function asServiceError(e: Partial<ServiceError>): ServiceError {
  return Object.assign(new Error(e.details ?? ''), {
    code: e.code ?? status.UNKNOWN,
    details: e.details ?? '',
    metadata: e.metadata ?? new Metadata(),
  });
}

describe('gRPC error mapping', () => {
  it('carries kind, code and field across the wire', () => {
    const sent = toGrpcError(new ConflictError('checkout blocked', { code: 'CHECKOUT_BLOCKED_BY_DISPUTE' }));
    expect(sent.code).toBe(status.ALREADY_EXISTS);
    const back = fromGrpcError(asServiceError(sent), 'checkout');
    expect(back).toBeInstanceOf(DomainError);
    expect(back.kind).toBe('conflict');
    expect(back.code).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
    expect(back.message).toBe('checkout blocked');

    const v = fromGrpcError(
      asServiceError(toGrpcError(new ValidationError('amount must be positive', { field: 'amount' }))),
      'checkout',
    );
    expect(v.httpStatus).toBe(400);
    expect(v.field).toBe('amount');
  });

  it('hides internal errors and reports transport failures as unavailable', () => {
    const internal = toGrpcError(new Error('db password wrong'));
    expect(internal.details).toBe('internal error');
    const down = fromGrpcError(
      asServiceError({ code: status.UNAVAILABLE, details: 'No connection established' }),
      'billing',
    );
    expect(down.kind).toBe('unavailable');
    expect(down.message).toMatch(/^billing unavailable/);
  });
});
