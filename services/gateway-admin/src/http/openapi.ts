import { errorResponses, openApiTransform as documentResponses, noContent, type OpenApiTransform } from '@paymesh/http';
import { createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodTypeAny } from 'zod';
import { COMPONENTS } from './responses/components';
import { ERROR_DESCRIPTIONS, errorStatuses } from './responses/envelope';
import { successStatus, type AnyRoute, type FileResponse, type FileUpload } from './route-table';

/** Fastify `response` schemas of a row: its success answer and every error it documents. */
export function responseSchemas(def: AnyRoute): Record<number, ZodTypeAny> {
  const status = successStatus(def);
  if ((status === 204) !== (def.response === null)) {
    throw new Error(`${def.method} ${def.path}: a 204 answer has no body, and only a 204 answer may have none`);
  }
  return {
    [status]: (def.response as ZodTypeAny | null) ?? noContent,
    ...errorResponses(errorStatuses(def)),
    ...(def.errorBodies as Record<number, ZodTypeAny> | undefined),
  };
}

const documented = documentResponses(ERROR_DESCRIPTIONS);

type Documented = Record<string, Record<string, unknown>>;

/**
 * Response documentation of the Admin API (descriptions of its error statuses); a file route's
 * success answer is its media type as binary, with Content-Disposition and the row's headers.
 */
export const openApiTransform: OpenApiTransform = (input) => {
  const out = documented(input);
  const config = (input as { route?: { config?: { file?: FileResponse; upload?: FileUpload } } }).route?.config;
  const upload = config?.upload;
  if (upload) {
    // A file as the request body: documented under its media type as binary.
    const schema = out.schema as Record<string, unknown>;
    schema.consumes = [upload.contentType];
    schema.body = {
      type: 'string',
      format: 'binary',
      description: `${upload.description} (at most ${upload.maxBytes} bytes)`,
    };
  }
  const file = config?.file;
  const response = (out.schema as { response?: Documented } | undefined)?.response;
  if (!file || !response) return out;
  for (const [status, documented] of Object.entries(response).filter(([s]) => s.startsWith('2'))) {
    const headers = documented.headers as Record<string, unknown> | undefined;
    response[status] = {
      'x-response-description': `The file (${file.contentType})`,
      content: { [file.contentType]: { schema: { type: 'string', format: 'binary' } } },
      headers: {
        ...headers,
        'Content-Disposition': { type: 'string', description: 'inline; filename="<file name>"' },
        ...Object.fromEntries(
          Object.entries(file.headers ?? {}).map(([name, description]) => [name, { type: 'string', description }]),
        ),
      },
    };
  }
  return out;
};

/** Refers to the named response schemas (COMPONENTS) wherever the document repeats one. */
export const openApiComponents = createJsonSchemaTransformObject({ schemas: { ...COMPONENTS } });
