import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { toHttpError, ValidationError, isDomainError, RateLimitedError } from '@paymesh/core';

interface ZodLikeIssue {
  path: (string | number)[];
  message: string;
}

function isZodError(err: unknown): err is { issues: ZodLikeIssue[] } {
  return typeof err === 'object' && err !== null && Array.isArray((err as { issues?: unknown }).issues);
}

/** Human message naming the offending field(s) of a schema validation failure. */
export function describeIssues(issues: ZodLikeIssue[], where = 'body'): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? `${where}.${i.path.join('.')}` : where}: ${i.message}`)
    .join('; ');
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
  return items
    .slice(0, 5)
    .map((i) => {
      const field = fieldOf(i);
      return `${field ? `${where}.${field}` : where}: ${i.message ?? 'invalid'}`;
    })
    .join('; ');
}

/**
 * Every failure leaves in the spec's envelope `{"error": "..."}` (plus `code` and `requestId` for
 * coded business conflicts). Unknown errors become 500 with the message hidden and logged.
 */
export const errorEnvelopePlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((err: FastifyError | Error, req, reply) => {
      const requestId = req.requestContext?.requestId;
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
          reply.status(fe.statusCode).send({ error: fe.message });
          return;
        }
      }
      const { status, body } = toHttpError(mapped, requestId);
      if (status >= 500) req.log.error({ err }, 'request failed');
      else req.log.info({ status, err: body.error }, 'request rejected');
      reply.status(status).send(body);
    });
    app.setNotFoundHandler((req, reply) => {
      reply.status(404).send({ error: `route ${req.method} ${req.url.split('?')[0]} not found` });
    });
  },
  { name: 'paymesh-error-envelope' },
);
