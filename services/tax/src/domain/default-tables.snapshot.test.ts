import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATES, DEFAULT_RATES_VERSION, RATE_CATEGORIES } from './default-rates';
import { DEFAULT_RULES, REDUCED_CATEGORIES } from './default-rules';

/**
 * The managed default tables as they were written out row by row, kept as JSON: the compact tables
 * and their builders must produce exactly these values (same rows, same order, same keys). When a
 * rate really changes, regenerate the snapshot together with DEFAULT_RATES_VERSION.
 */
const snapshot: unknown = JSON.parse(readFileSync(new URL('./default-tables.snapshot.json', import.meta.url), 'utf8'));

describe('default tables', () => {
  it('build exactly the snapshot', () => {
    const built = { DEFAULT_RATES_VERSION, RATE_CATEGORIES, DEFAULT_RATES, REDUCED_CATEGORIES, DEFAULT_RULES };
    expect(JSON.stringify(built)).toBe(JSON.stringify(snapshot));
  });
});
