/** Error types of the provider's v1 API, as found in the `error.type` field. */
export type ApiErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

export interface ApiErrorBody {
  type: ApiErrorType;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  [extra: string]: unknown;
}

/**
 * An error returned to API callers as `{ error: { type, message, ... } }`.
 * `replayable` is false for errors raised before the request started doing work (bad parameters,
 * authentication): those are not stored under an idempotency key, like the real provider.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody;
  readonly replayable: boolean;

  constructor(status: number, body: ApiErrorBody, replayable = true) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.replayable = replayable;
  }
}

const DOCS = 'https://stripe.com/docs/error-codes';

/** A malformed or missing request parameter (400, not stored for idempotent replay). */
export function invalidParam(message: string, param?: string, code?: string): ApiError {
  return new ApiError(
    400,
    {
      type: 'invalid_request_error',
      message,
      ...(code ? { code, doc_url: `${DOCS}/${code.replace(/_/g, '-')}` } : {}),
      ...(param ? { param } : {}),
    },
    false,
  );
}

export function missingParam(param: string): ApiError {
  return invalidParam(`Missing required param: ${param}.`, param, 'parameter_missing');
}

export function unknownParam(param: string): ApiError {
  return invalidParam(`Received unknown parameter: ${param}`, param, 'parameter_unknown');
}

/** `No such payment_intent: 'pi_123'` with code resource_missing (404). */
export function noSuch(resource: string, id: string, param = 'id', status = 404): ApiError {
  return new ApiError(
    status,
    {
      type: 'invalid_request_error',
      code: 'resource_missing',
      doc_url: `${DOCS}/resource-missing`,
      message: `No such ${resource}: '${id}'`,
      param,
    },
    false,
  );
}

/** A request that is well formed but not allowed in the object's current state (400, replayable). */
export function unexpectedState(
  message: string,
  code = 'payment_intent_unexpected_state',
  extra: Record<string, unknown> = {},
): ApiError {
  return new ApiError(400, {
    type: 'invalid_request_error',
    code,
    doc_url: `${DOCS}/${code.replace(/_/g, '-')}`,
    message,
    ...extra,
  });
}

export function authError(message: string): ApiError {
  return new ApiError(401, { type: 'invalid_request_error', message }, false);
}
