import { ERROR_CATALOGUE, type ErrorCodeName } from './error-codes';

/**
 * Typed domain errors. One table maps each kind to an HTTP status and a gRPC status code,
 * so every service and both gateways agree on how a failure reaches the caller.
 */
export type ErrorKind =
  | 'validation'
  | 'unprocessable'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'not_supported'
  | 'unavailable'
  | 'internal';

/** gRPC status codes (numeric values from the gRPC spec). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

interface KindMapping {
  http: number;
  grpc: number;
}

export const ERROR_KINDS: Readonly<Record<ErrorKind, KindMapping>> = Object.freeze({
  validation: { http: 400, grpc: GrpcCode.INVALID_ARGUMENT },
  unprocessable: { http: 422, grpc: GrpcCode.FAILED_PRECONDITION },
  unauthenticated: { http: 401, grpc: GrpcCode.UNAUTHENTICATED },
  forbidden: { http: 403, grpc: GrpcCode.PERMISSION_DENIED },
  not_found: { http: 404, grpc: GrpcCode.NOT_FOUND },
  conflict: { http: 409, grpc: GrpcCode.ALREADY_EXISTS },
  rate_limited: { http: 429, grpc: GrpcCode.RESOURCE_EXHAUSTED },
  not_supported: { http: 501, grpc: GrpcCode.UNIMPLEMENTED },
  unavailable: { http: 503, grpc: GrpcCode.UNAVAILABLE },
  internal: { http: 500, grpc: GrpcCode.INTERNAL },
});

const GRPC_TO_KIND: ReadonlyMap<number, ErrorKind> = new Map<number, ErrorKind>([
  [GrpcCode.INVALID_ARGUMENT, 'validation'],
  [GrpcCode.OUT_OF_RANGE, 'validation'],
  [GrpcCode.FAILED_PRECONDITION, 'unprocessable'],
  [GrpcCode.UNAUTHENTICATED, 'unauthenticated'],
  [GrpcCode.PERMISSION_DENIED, 'forbidden'],
  [GrpcCode.NOT_FOUND, 'not_found'],
  [GrpcCode.ALREADY_EXISTS, 'conflict'],
  [GrpcCode.ABORTED, 'conflict'],
  [GrpcCode.RESOURCE_EXHAUSTED, 'rate_limited'],
  [GrpcCode.UNIMPLEMENTED, 'not_supported'],
  [GrpcCode.UNAVAILABLE, 'unavailable'],
  [GrpcCode.DEADLINE_EXCEEDED, 'unavailable'],
]);

export interface DomainErrorOptions {
  /** Stable machine-readable code from the catalogue (error-codes.ts), e.g. CHECKOUT_BLOCKED_BY_DISPUTE. */
  code?: ErrorCodeName;
  /** Field the error is about, for validation errors. */
  field?: string;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly code: ErrorCodeName | undefined;
  readonly field: string | undefined;

  constructor(kind: ErrorKind, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    // A catalogued code fixes the status it travels with, whichever class carries it.
    this.kind = options.code ? ERROR_CATALOGUE[options.code].kind : kind;
    this.code = options.code;
    this.field = options.field;
  }

  get httpStatus(): number {
    return ERROR_KINDS[this.kind].http;
  }

  get grpcCode(): number {
    return ERROR_KINDS[this.kind].grpc;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, options: DomainErrorOptions = {}) {
    super('validation', message, options);
  }
}
export class UnprocessableError extends DomainError {
  constructor(message: string, options: DomainErrorOptions = {}) {
    super('unprocessable', message, options);
  }
}
export class UnauthenticatedError extends DomainError {
  constructor(message = 'authentication required', options: DomainErrorOptions = {}) {
    super('unauthenticated', message, options);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message = 'forbidden', options: DomainErrorOptions = {}) {
    super('forbidden', message, options);
  }
}
export class NotFoundError extends DomainError {
  constructor(message = 'not found', options: DomainErrorOptions = {}) {
    super('not_found', message, options);
  }
}
export class ConflictError extends DomainError {
  constructor(message: string, options: DomainErrorOptions = {}) {
    super('conflict', message, options);
  }
}
export class RateLimitedError extends DomainError {
  constructor(message = 'rate limit exceeded', options: DomainErrorOptions = {}) {
    super('rate_limited', message, options);
  }
}
export class NotSupportedError extends DomainError {
  constructor(message: string, options: DomainErrorOptions = {}) {
    super('not_supported', message, options);
  }
}
export class UnavailableError extends DomainError {
  constructor(message: string, options: DomainErrorOptions = {}) {
    super('unavailable', message, options);
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

/** Kind for a gRPC status code received from another service. */
export function kindFromGrpcCode(code: number): ErrorKind {
  return GRPC_TO_KIND.get(code) ?? 'internal';
}

/** The spec's HTTP error envelope; `code` and `requestId` only where the spec asks for them. */
export interface ErrorEnvelope {
  error: string;
  code?: string;
  requestId?: string;
}

/** What clients see of internal and transport failures; the detail goes to the logs only. */
export const INTERNAL_ERROR_MESSAGE = 'internal error';

/**
 * Whether a failure's own message may reach a client: every domain error except internal ones and
 * uncoded `unavailable` ones (transport failures between services: addresses, resolver or
 * serialization details). Coded `unavailable` errors (PAYMENT_RETIRE_PENDING, …) are deliberate
 * answers and keep their message.
 */
export function isPublicError(err: unknown): err is DomainError {
  if (!isDomainError(err)) return false;
  if (err.kind === 'internal') return false;
  if (err.kind === 'unavailable' && !err.code) return false;
  return true;
}

/**
 * Maps any thrown value to an HTTP status and envelope. Internal and transport errors become
 * `{"error":"internal error","requestId"}` (500, or 503 for an unavailable dependency) with the
 * message hidden; the caller logs the original with the request ID.
 */
export function toHttpError(err: unknown, requestId?: string): { status: number; body: ErrorEnvelope } {
  if (isPublicError(err)) {
    const body: ErrorEnvelope = { error: err.message };
    if (err.code) {
      body.code = err.code;
      if (requestId) body.requestId = requestId;
    }
    return { status: err.httpStatus, body };
  }
  const status = isDomainError(err) ? err.httpStatus : 500;
  return { status, body: { error: INTERNAL_ERROR_MESSAGE, ...(requestId ? { requestId } : {}) } };
}
