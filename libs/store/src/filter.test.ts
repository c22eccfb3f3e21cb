import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { normalizeFilter, normalizePaging, normalizeSort, totalFromPage } from './filter';

describe('normalizeFilter', () => {
  it('flattens equality and operators into single conditions', () => {
    expect(
      normalizeFilter({ status: 'open', amount: { $gte: 1, $lt: 10 }, 'billing.country': { $in: ['DE', null] } }),
    ).toEqual([
      { path: 'status', op: 'eq', value: 'open' },
      { path: 'amount', op: 'gte', value: 1 },
      { path: 'amount', op: 'lt', value: 10 },
      { path: 'billing.country', op: 'in', values: ['DE', null] },
    ]);
  });

  it.each([
    '{"a b": 1}',
    '{".a": 1}',
    '{"a.": 1}',
    '{"$or": 1}',
    '{"a": {"$regex": "x"}}',
    '{"a": {}}',
    '{"a": {"$in": "x"}}',
    '{"a": {"$gt": true}}',
    '{"a": {"$exists": 1}}',
    '{"a": {"nested": 1}}',
    '{"a": [1]}',
  ])('rejects %s', (json) => {
    expect(() => normalizeFilter(JSON.parse(json))).toThrow(ValidationError);
  });

  it('rejects non-finite numbers', () => {
    expect(() => normalizeFilter({ a: Number.POSITIVE_INFINITY })).toThrow(ValidationError);
    expect(() => normalizeFilter({ a: { $lt: Number.NaN } })).toThrow(ValidationError);
  });
});

describe('normalizeSort and normalizePaging', () => {
  it('validates sort paths and directions', () => {
    expect(normalizeSort({ 'a.b': -1, id: 1 })).toEqual([
      { path: 'a.b', dir: -1 },
      { path: 'id', dir: 1 },
    ]);
    expect(() => normalizeSort({ 'a-b': 1 })).toThrow(ValidationError);
    expect(() => normalizeSort(JSON.parse('{"a": 0}'))).toThrow(ValidationError);
  });

  it('computes offsets and rejects nonsense', () => {
    expect(normalizePaging({ page: 3, limit: 20 })).toEqual({ page: 3, limit: 20, offset: 40 });
    expect(normalizePaging({})).toEqual({ page: 1, limit: undefined, offset: 0 });
    expect(() => normalizePaging({ page: 0, limit: 1 })).toThrow(ValidationError);
    expect(() => normalizePaging({ limit: 1.5 })).toThrow(ValidationError);
    expect(() => normalizePaging({ page: 2 })).toThrow(ValidationError);
  });
});

describe('totalFromPage', () => {
  it('derives the total from a short page or an empty first page, and only then', () => {
    expect(totalFromPage({ offset: 0, limit: 20 }, 3)).toBe(3);
    expect(totalFromPage({ offset: 40, limit: 20 }, 5)).toBe(45);
    expect(totalFromPage({ offset: 0, limit: 20 }, 0)).toBe(0);
    expect(totalFromPage({ offset: 0, limit: 20 }, 20)).toBeUndefined();
    expect(totalFromPage({ offset: 60, limit: 20 }, 0)).toBeUndefined();
  });
});
