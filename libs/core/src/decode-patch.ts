import { ValidationError } from './errors';
import type { z, ZodTypeAny } from 'zod';

/**
 * Decodes a JSON merge patch sent by the gateway with the shared contract schema; any mismatch is
 * a ValidationError naming the first offending field.
 */
export function decodePatch<S extends ZodTypeAny>(schema: S, json: string): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new ValidationError('patch must be a JSON object');
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length ? issue.path.join('.') : undefined;
  const message = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ');
  throw new ValidationError(message, field ? { field } : {});
}
