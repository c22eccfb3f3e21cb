import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * The spec's error envelope as a response schema. `code` (a stable machine-readable name such as
 * CHECKOUT_BLOCKED_BY_DISPUTE) and `requestId` come with coded business errors, `requestId` with 500s.
 */
export const errorEnvelope = z.object({
  error: z.string().describe('human-readable message'),
  code: z.string().optional().describe('stable error code of coded business errors (e.g. CHECKOUT_BLOCKED_BY_DISPUTE)'),
  requestId: z
    .string()
    .optional()
    .describe('X-Request-ID of the request, with coded errors: show it to the customer or operator'),
});

/**
 * Marker of an answer without a body (204). The document shows it as "No content"; fastify never
 * serializes it because nothing is sent.
 */
/** The error envelope for each of `statuses` (a route's documented error answers). */
export function errorResponses(statuses: readonly number[]): Record<number, typeof errorEnvelope> {
  return Object.fromEntries(statuses.map((s) => [s, errorEnvelope]));
}

export const noContent = z.never().describe('No content');

export type OpenApiTransformInput = Parameters<typeof jsonSchemaTransform>[0];
export type OpenApiTransformOutput = ReturnType<typeof jsonSchemaTransform>;
export type OpenApiTransform = (input: OpenApiTransformInput) => OpenApiTransformOutput;

const REQUEST_ID_HEADER = {
  'X-Request-ID': {
    type: 'string',
    description: 'ID of the request (the sane incoming one, else a new one); quote it in support requests',
  },
};
const RETRY_AFTER_HEADER = { 'Retry-After': { type: 'integer', description: 'seconds until the limit resets' } };
const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = { '200': 'OK', '201': 'Created' };
/** @fastify/swagger takes a response's description from this key and keeps it out of the body schema. */
const RESPONSE_DESCRIPTION = 'x-response-description';

/**
 * zod -> OpenAPI (fastify-type-provider-zod), then what JSON Schema cannot say: a 204 has no
 * content, every answer carries X-Request-ID, a 429 carries Retry-After, and each status has its
 * description beside (not inside) the body schema, so equal bodies can become one named component.
 */
export function openApiTransform(errorDescriptions: Readonly<Record<number, string>>): OpenApiTransform {
  return (input) => {
    const out = jsonSchemaTransform(input);
    const response = (out.schema as { response?: Record<string, Record<string, unknown>> } | undefined)?.response;
    if (!response) return out;
    for (const [status, schema] of Object.entries(response)) {
      response[status] =
        status === '204'
          ? { type: 'null', description: 'No content', headers: REQUEST_ID_HEADER }
          : {
              ...withoutDescription(schema),
              [RESPONSE_DESCRIPTION]:
                schema.description ?? SUCCESS_DESCRIPTIONS[status] ?? errorDescriptions[Number(status)] ?? 'Error',
              headers: { ...REQUEST_ID_HEADER, ...(status === '429' ? RETRY_AFTER_HEADER : {}) },
            };
    }
    return out;
  };
}

function withoutDescription(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, ...rest } = schema;
  return rest;
}

interface FileConfig {
  file?: { contentType: string; headers?: Record<string, string> };
  upload?: { contentType: string; maxBytes: number; description: string };
}

/**
 * Adds to a transform what a route table's file rows need: a file answer (`config.file`) is its
 * media type as binary, with Content-Disposition and the row's headers; a file body
 * (`config.upload`) is its media type as binary.
 */
export function openApiFiles(transform: OpenApiTransform): OpenApiTransform {
  return (input) => {
    const out = transform(input);
    const config = (input as { route?: { config?: FileConfig } }).route?.config;
    const upload = config?.upload;
    if (upload) {
      const schema = out.schema as Record<string, unknown>;
      schema.consumes = [upload.contentType];
      schema.body = {
        type: 'string',
        format: 'binary',
        description: `${upload.description} (at most ${upload.maxBytes} bytes)`,
      };
    }
    const file = config?.file;
    const response = (out.schema as { response?: Record<string, Record<string, unknown>> } | undefined)?.response;
    if (!file || !response) return out;
    for (const [status, documented] of Object.entries(response).filter(([s]) => s.startsWith('2'))) {
      const headers = documented.headers as Record<string, unknown> | undefined;
      response[status] = {
        [RESPONSE_DESCRIPTION]: `The file (${file.contentType})`,
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
}
