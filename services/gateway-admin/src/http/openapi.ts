import {
  openApiFiles,
  openApiTransform as documentResponses,
  responseSchemas as rowResponses,
  type OpenApiTransform,
} from '@paymesh/http';
import type { ZodTypeAny } from 'zod';
import { createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { COMPONENTS } from './responses/components';
import { ERROR_DESCRIPTIONS, errorStatuses } from './responses/envelope';
import type { AnyRoute } from './route-table';

/** Fastify `response` schemas of a row: its success answer and every error it documents. */
export function responseSchemas(def: AnyRoute): Record<number, ZodTypeAny> {
  return rowResponses(def, errorStatuses(def));
}

/**
 * Response documentation of the Admin API (descriptions of its error statuses); a file route's
 * success answer is its media type as binary, with Content-Disposition and the row's headers, and
 * a file upload its media type as binary.
 */
export const openApiTransform: OpenApiTransform = openApiFiles(documentResponses(ERROR_DESCRIPTIONS));

/** Refers to the named response schemas (COMPONENTS) wherever the document repeats one. */
export const openApiComponents = createJsonSchemaTransformObject({ schemas: { ...COMPONENTS } });
