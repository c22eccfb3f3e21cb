import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { errorResponses, errorStatuses, noContent } from './responses/envelope';
import { successStatus, type AnyRoute } from './route-table';

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

const REQUEST_ID_HEADER = { 'X-Request-ID': { type: 'string', description: 'ID of the request (the sane incoming one, else a new one); quote it in support requests' } };
const RETRY_AFTER_HEADER = { 'Retry-After': { type: 'integer', description: 'seconds until the limit resets' } };

/** Fastify `response` schemas of a row: its success answer and every error it documents. */
export function responseSchemas(def: AnyRoute): Record<number, ZodTypeAny> {
  const status = successStatus(def);
  if ((status === 204) !== (def.response === null)) {
    throw new Error(`${def.method} ${def.path}: a 204 answer has no body, and only a 204 answer may have none`);
  }
  return { [status]: (def.response as ZodTypeAny | null) ?? noContent, ...errorResponses(errorStatuses(def)) };
}

/**
 * zod -> OpenAPI (fastify-type-provider-zod), then what JSON Schema cannot say: a 204 has no
 * content, every answer carries X-Request-ID, and a 429 carries Retry-After.
 */
export function openApiTransform(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const out = jsonSchemaTransform(input);
  const response = (out.schema as { response?: Record<string, Record<string, unknown>> } | undefined)?.response;
  if (!response) return out;
  for (const [status, schema] of Object.entries(response)) {
    response[status] =
      status === '204'
        ? { type: 'null', description: 'No content', headers: REQUEST_ID_HEADER }
        : { ...schema, headers: { ...REQUEST_ID_HEADER, ...(status === '429' ? RETRY_AFTER_HEADER : {}) } };
  }
  return out;
}
