import type { z, ZodTypeAny } from 'zod';
import { ValidationError } from './errors';

/**
 * The one decoder of JSON carried between services (RPC bodies, merge patches): an empty string is
 * `{}`; bad JSON, or a shape the schema refuses, is a ValidationError naming the first offending
 * field. `precheck` sees the parsed JSON before the schema does (to name a refused field better
 * than the schema's message would).
 */
export function decodeJson<S extends ZodTypeAny>(
  schema: S,
  json: string,
  precheck?: (raw: unknown) => void,
): z.output<S> {
  let raw: unknown;
  try {
    raw = json === '' ? {} : JSON.parse(json);
  } catch {
    throw new ValidationError('body must be JSON');
  }
  precheck?.(raw);
  return decodeValue(schema, raw);
}

/** Checks a value another service sent with a contract schema: a refusal is a ValidationError naming the first offending field. */
export function decodeValue<S extends ZodTypeAny>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  throw new ValidationError(
    field ? `${field}: ${issue?.message ?? 'invalid'}` : (issue?.message ?? 'invalid body'),
    field ? { field } : {},
  );
}
