import type { OpenApiTransform } from '../openapi';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, IDEMPOTENT_REPLAYED_HEADER } from './fingerprint';

type JsonSchemaObject = { type?: string; properties?: Record<string, unknown>; required?: string[] };

/** What the header parameter says on every keyed operation; `whose` names the scope of a key. */
export function idempotencyKeyDescription(whose: string): string {
  return (
    'Makes the request safe to retry. The same key with the same body and route within 24 hours answers the first answer again ' +
    `(same status and body, header ${IDEMPOTENT_REPLAYED_HEADER}: true) without doing the work twice, also while the first request is still running ` +
    '(the retry waits for it; 409 IDEMPOTENCY_KEY_IN_PROGRESS if it takes too long). The same key with another body or route: 409 IDEMPOTENCY_KEY_REUSED. ' +
    `Answers 400, 401, 403, 408, 429 and 5xx are not kept. Keys are ${whose}.`
  );
}

/**
 * Documents Idempotency-Key on the operations named in `operations`: the optional header parameter
 * and the replay header of the success answer. Wraps the gateway's OpenAPI transform.
 */
export function documentIdempotency(
  transform: OpenApiTransform,
  operations: ReadonlySet<string>,
  whose: string,
): OpenApiTransform {
  const parameter = {
    type: 'string',
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX,
    pattern: '^[ -~]+$',
    description: idempotencyKeyDescription(whose),
  };
  const replayed = {
    type: 'string',
    enum: ['true'],
    description: 'Present on an answer replayed for a repeated Idempotency-Key',
  };
  return (input) => {
    const out = transform(input);
    const schema = out.schema as
      | {
          operationId?: unknown;
          headers?: JsonSchemaObject;
          response?: Record<string, { headers?: Record<string, unknown> }>;
        }
      | undefined;
    if (!schema || typeof schema.operationId !== 'string' || !operations.has(schema.operationId)) return out;
    const headers = schema.headers ?? { type: 'object', properties: {} };
    schema.headers = {
      ...headers,
      type: 'object',
      properties: { ...headers.properties, [IDEMPOTENCY_KEY_HEADER]: parameter },
    };
    for (const [status, response] of Object.entries(schema.response ?? {})) {
      if (status.startsWith('2')) response.headers = { ...response.headers, [IDEMPOTENT_REPLAYED_HEADER]: replayed };
    }
    return out;
  };
}
