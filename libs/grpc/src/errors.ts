import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  DomainError,
  INTERNAL_ERROR_MESSAGE,
  isErrorCode,
  kindFromGrpcCode,
  type ErrorKind,
  ERROR_KINDS,
} from '@paymesh/core';

const KIND_KEY = 'x-error-kind';
const CODE_KEY = 'x-error-code';
const FIELD_KEY = 'x-error-field';

/** Turns any thrown value into a gRPC error carrying the domain error's kind, code and field. */
export function toGrpcError(err: unknown): Partial<ServiceError> {
  const md = new Metadata();
  if (err instanceof DomainError) {
    md.set(KIND_KEY, err.kind);
    if (err.code) md.set(CODE_KEY, err.code);
    if (err.field) md.set(FIELD_KEY, err.field);
    return { code: err.grpcCode, details: err.message, metadata: md };
  }
  md.set(KIND_KEY, 'internal');
  return { code: status.INTERNAL, details: INTERNAL_ERROR_MESSAGE, metadata: md };
}

function first(md: Metadata | undefined, key: string): string | undefined {
  const v = md?.get(key)[0];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Rebuilds the DomainError a downstream service threw (or an `unavailable` one for transport failures). */
export function fromGrpcError(err: ServiceError, target: string): DomainError {
  const kindHeader = first(err.metadata, KIND_KEY);
  const kind: ErrorKind =
    kindHeader && kindHeader in ERROR_KINDS ? (kindHeader as ErrorKind) : kindFromGrpcCode(err.code);
  const rawCode = first(err.metadata, CODE_KEY);
  const code = isErrorCode(rawCode) ? rawCode : undefined;
  const field = first(err.metadata, FIELD_KEY);
  const transport = err.code === status.UNAVAILABLE || err.code === status.DEADLINE_EXCEEDED;
  // Transport details (addresses, resolver errors) stay in `cause` for the logs, not in the message callers see.
  const message = transport && !kindHeader ? `${target} unavailable` : err.details || err.message;
  return new DomainError(kind, message, { ...(code ? { code } : {}), ...(field ? { field } : {}), cause: err });
}
