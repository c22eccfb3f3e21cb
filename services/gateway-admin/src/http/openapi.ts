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

/** Response documentation of the Admin API (descriptions of its error statuses). */
export const openApiTransform: OpenApiTransform = documentResponses(ERROR_DESCRIPTIONS);

/** Refers to the named response schemas (COMPONENTS) wherever the document repeats one. */
export const openApiComponents = createJsonSchemaTransformObject({ schemas: { ...COMPONENTS } });
