import { ValidationError } from '@paymesh/core';
import { assertFieldPath, assertIdentifier } from './paths';
import type { TextIndexSpec } from './port';

/** Most words a text query uses; more are ignored. */
export const MAX_SEARCH_WORDS = 16;

/**
 * Words of a search text as both backends index them: lower-cased, split at anything that is
 * not a letter or digit, duplicates dropped, at most MAX_SEARCH_WORDS.
 */
export function searchWords(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return [...new Set(words)].slice(0, MAX_SEARCH_WORDS);
}

export function assertTextFields(fields: string[]): void {
  if (!Array.isArray(fields) || fields.length === 0) throw new ValidationError('a text index needs at least one field');
  fields.forEach(assertFieldPath);
}

export function assertTextIndexSpec(spec: TextIndexSpec): void {
  assertIdentifier(spec.name, 'index');
  assertTextFields(spec.fields);
}
