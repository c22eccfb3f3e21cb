import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { ValidationError, type Logger } from '@paymesh/core';
import type { ZodType, ZodTypeDef } from 'zod';
import { unary } from './server';

/**
 * Parses the `body_json` of a JSON-carrying RPC (empty = `{}`) with a contract schema; bad JSON or a
 * shape the schema refuses is a ValidationError naming the first offending field.
 */
export function parseJsonBody<T>(bodyJson: string, schema: ZodType<T, ZodTypeDef, unknown>): T {
  let raw: unknown;
  try {
    raw = bodyJson === '' ? {} : JSON.parse(bodyJson);
  } catch {
    throw new ValidationError('body must be JSON');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
    throw new ValidationError(
      field ? `${field}: ${issue?.message ?? 'invalid'}` : (issue?.message ?? 'invalid body'),
      field ? { field } : {},
    );
  }
  return parsed.data;
}

/** A JSON-carrying unary handler: the use case's answer is serialized into the response's `json`. */
export function jsonUnary<Req>(
  logger: Logger,
  method: string,
  handler: (req: Req) => Promise<unknown>,
): (call: ServerUnaryCall<Req, { json: string }>, callback: sendUnaryData<{ json: string }>) => void {
  return unary(logger, method, async (req: Req) => ({ json: JSON.stringify(await handler(req)) }));
}
