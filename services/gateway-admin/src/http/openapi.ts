import { errorResponses, openApiTransform as documentResponses, noContent, type OpenApiTransform } from '@paymesh/http';
import { createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { COMPONENTS } from './responses/components';
import { ERROR_DESCRIPTIONS, errorStatuses } from './responses/envelope';
import { successStatus, type AnyRoute } from './route-table';

/** Fastify `response` schemas of a row: its success answer and every error it documents. */
export function responseSchemas(def: AnyRoute): Record<number, ZodTypeAny> {
  const status = successStatus(def);
  if ((status === 204) !== (def.response === null)) {
    throw new Error(`${def.method} ${def.path}: a 204 answer has no body, and only a 204 answer may have none`);
  }
  return { [status]: (def.response as ZodTypeAny | null) ?? noContent, ...errorResponses(errorStatuses(def)) };
}

const documented = documentResponses(ERROR_DESCRIPTIONS);

/** Where a file route names its media type in the fastify schema (see RouteDef.produces). */
export const FILE_MEDIA_TYPE = 'x-produces';

/**
 * Response documentation of the Admin API (descriptions of its error statuses); a file route's
 * success answer is documented as text of its media type, its errors as JSON like every route's.
 */
export const openApiTransform: OpenApiTransform = (input) => {
  const out = documented(input);
  const media = (input.schema as Record<string, unknown> | undefined)?.[FILE_MEDIA_TYPE];
  const schema = out.schema as { response?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  if (typeof media !== 'string' || !schema.response) return out;
  delete schema[FILE_MEDIA_TYPE];
  for (const [status, answer] of Object.entries(schema.response)) {
    if (!status.startsWith('2')) continue;
    const { headers, 'x-response-description': description } = answer;
    schema.response[status] = { 'x-response-description': description, headers, content: { [media]: { schema: { type: 'string' } } } };
  }
  return out;
};

/** Refers to the named response schemas (COMPONENTS) wherever the document repeats one. */
export const openApiComponents = createJsonSchemaTransformObject({ schemas: { ...COMPONENTS } });
