import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { COMPONENTS } from './responses/components';
import { ERROR_DESCRIPTIONS, errorResponses, errorStatuses, noContent } from './responses/envelope';
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

const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = { '200': 'OK', '201': 'Created' };
/** @fastify/swagger takes a response's description from this key and keeps it out of the body schema. */
const RESPONSE_DESCRIPTION = 'x-response-description';

/**
 * zod -> OpenAPI (fastify-type-provider-zod), then what JSON Schema cannot say: a 204 has no
 * content, every answer carries X-Request-ID, a 429 carries Retry-After, and each status has its
 * description beside (not inside) the body schema, so equal bodies become one named component.
 */
export function openApiTransform(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const out = jsonSchemaTransform(input);
  const response = (out.schema as { response?: Record<string, Record<string, unknown>> } | undefined)?.response;
  if (!response) return out;
  for (const [status, schema] of Object.entries(response)) {
    response[status] =
      status === '204'
        ? { type: 'null', description: 'No content', headers: REQUEST_ID_HEADER }
        : {
            ...withoutDescription(schema),
            [RESPONSE_DESCRIPTION]: schema.description ?? SUCCESS_DESCRIPTIONS[status] ?? ERROR_DESCRIPTIONS[Number(status)] ?? 'Error',
            headers: { ...REQUEST_ID_HEADER, ...(status === '429' ? RETRY_AFTER_HEADER : {}) },
          };
  }
  return out;
}

function withoutDescription(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, ...rest } = schema;
  return rest;
}

/** Refers to the named response schemas (COMPONENTS) wherever the document repeats one. */
export const openApiComponents = createJsonSchemaTransformObject({ schemas: { ...COMPONENTS } });
