import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { toHttpError, ValidationError, isDomainError, RateLimitedError, REQUEST_ID_HEADER } from '@paymesh/core';

interface ZodLikeIssue {
  path: (string | number)[];
  message: string;
}

function isZodError(err: unknown): err is { issues: ZodLikeIssue[] } {
  return typeof err === 'object' && err !== null && Array.isArray((err as { issues?: unknown }).issues);
}

/** Longest field path and message echoed back (a hostile key or value may be a megabyte long). */
const MAX_PATH = 120;
const MAX_MESSAGE = 600;

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Human message naming the offending field(s) of a schema validation failure. */
export function describeIssues(issues: ZodLikeIssue[], where = 'body'): string {
  return clip(
    issues
      .slice(0, 5)
      .map(
        (i) =>
          `${i.path.length ? clip(`${where}.${i.path.join('.')}`, MAX_PATH) : where}: ${clip(i.message, MAX_PATH)}`,
      )
      .join('; '),
    MAX_MESSAGE,
  );
}

interface ValidationItem {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldOf(item: ValidationItem | undefined): string | undefined {
  if (!item) return undefined;
  const path = (item.instancePath ?? '').split('/').filter(Boolean);
  // JSON-schema (ajv) reports a missing property on its parent object.
  const missing = item.params?.missingProperty;
  if (typeof missing === 'string') path.push(missing);
  return path.length ? path.join('.') : undefined;
}

/**
 * `body.scopes.0: unknown scope "x"; body.name: Required` from fastify's validation items
 * (fastify-type-provider-zod issues carry the zod path in `instancePath`).
 */
export function describeValidation(items: ValidationItem[], where: string): string {
  return clip(
    items
      .slice(0, 5)
      .map((i) => {
        const field = fieldOf(i);
        return `${field ? clip(`${where}.${field}`, MAX_PATH) : where}: ${clip(i.message ?? 'invalid', MAX_PATH)}`;
      })
      .join('; '),
    MAX_MESSAGE,
  );
}

/**
 * Client messages for fastify's own request errors (codes of fastify 5); others keep fastify's
 * message. Keyed by code so the wording is ours and stable.
 */
const FRAMEWORK_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_BAD_URL: 'the URL is not validly percent-encoded',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is too long',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported media type: send Content-Type application/json',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported media type: send Content-Type application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'body must not be empty when Content-Type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'body is not valid JSON',
  FST_ERR_ASYNC_CONSTRAINT: 'the request could not be routed',
};

/** The envelope message of a 4xx raised by fastify itself (parsers, router). */
export function frameworkMessage(err: FastifyError): string {
  const known = err.code ? FRAMEWORK_MESSAGES[err.code] : undefined;
  if (known) return known;
  // JSON.parse and prototype-poisoning refusals arrive as SyntaxError with status 400.
  if (err instanceof SyntaxError) return `body is not valid JSON: ${clip(err.message, MAX_PATH)}`;
  return clip(err.message || 'bad request', MAX_PATH);
}

/**
 * Fastify's `frameworkErrors` option: bad URL encoding and over-long path parameters are refused
 * before routing, so no onRequest hook has run; answer in the envelope and set X-Request-ID here.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  req.log.info({ status, code: err.code }, 'request rejected before routing');
  void reply
    .header(REQUEST_ID_HEADER, req.id)
    .status(status)
    .send({ error: frameworkMessage(err) });
}

/**
 * Largest declared body that is read and dropped after a 413 instead of closing the connection.
 * Fastify closes the connection on a body it refuses; a client still sending (an upload just over
 * the limit) then fails writing and never sees the 413. Reading the rest lets the client finish
 * and read the answer; a larger or undeclared rest still closes the connection.
 */
export const OVER_LIMIT_DRAIN_BYTES = 32 * 1024 * 1024;

/** Whether a refused body of this declared length is read to its end (see OVER_LIMIT_DRAIN_BYTES). */
export function drainsOverLimitBody(contentLength: string | undefined): boolean {
  const declared = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : NaN;
  return declared <= OVER_LIMIT_DRAIN_BYTES;
}

/**
 * Every failure leaves in the spec's envelope `{"error": "..."}` (plus `code` and `requestId` for
 * coded business conflicts). Unknown errors become 500 with the message hidden and logged.
 */
export const errorEnvelopePlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((err: FastifyError | Error, req, reply) => {
      const requestId = req.requestContext?.requestId ?? req.id;
      // Errors raised before the request-context hook ran still carry the request's ID.
      if (!reply.hasHeader(REQUEST_ID_HEADER)) reply.header(REQUEST_ID_HEADER, requestId);
      let mapped: unknown = err;
      if (isZodError(err)) {
        mapped = new ValidationError(describeIssues(err.issues));
      } else if (!isDomainError(err)) {
        const fe = err as FastifyError;
        if (fe.statusCode === 429) {
          mapped = new RateLimitedError(fe.message || 'rate limit exceeded');
        } else if (fe.validation) {
          mapped = new ValidationError(describeValidation(fe.validation, fe.validationContext ?? 'request'), {
            field: fieldOf(fe.validation[0]),
          });
        } else if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
          req.log.info({ status: fe.statusCode, code: fe.code }, 'request rejected');
          if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && drainsOverLimitBody(req.headers['content-length']))
            reply.removeHeader('connection');
          reply.status(fe.statusCode).send({ error: frameworkMessage(fe) });
          return;
        }
      }
      const { status, body } = toHttpError(mapped, requestId);
      if (status >= 500) req.log.error({ err }, 'request failed');
      else req.log.info({ status, err: body.error }, 'request rejected');
      reply.status(status).send(body);
    });
    app.setNotFoundHandler((req, reply) => {
      if (!reply.hasHeader(REQUEST_ID_HEADER)) reply.header(REQUEST_ID_HEADER, req.requestContext?.requestId ?? req.id);
      reply.status(404).send({ error: `route ${req.method} ${clip(req.url.split('?')[0] ?? '', MAX_PATH)} not found` });
    });
  },
  { name: 'paymesh-error-envelope' },
);
