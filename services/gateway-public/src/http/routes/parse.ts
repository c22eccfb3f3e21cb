import type { z, ZodTypeAny } from 'zod';
import { ValidationError } from '@paymesh/core';
import { describeIssues, text } from '@paymesh/http';

/** A non-empty bounded text field whose absence is reported by name. */
export const required = (field: string, max: number) => text(max).refine((v) => v.length > 0, `${field} is required`);

/** Validates a request part with a zod schema; 400 naming the offending field otherwise. */
export function parse<S extends ZodTypeAny>(
  schema: S,
  value: unknown,
  where: 'body' | 'params' | 'query' = 'body',
): z.infer<S> {
  const res = schema.safeParse(value ?? {});
  if (!res.success) throw new ValidationError(describeIssues(res.error.issues, where));
  return res.data;
}
