import { describe, expect, it } from 'vitest';
import { normalizeFilter } from '../filter';
import { toMongoFilter, toMongoKeys, toMongoSort } from './filter';

describe('mongodb filter translation', () => {
  it('gives every condition its own $and clause and maps id to _id', () => {
    expect(toMongoFilter(normalizeFilter({ id: 'x', amount: { $gte: 1, $lt: 5 }, note: { $exists: false } }))).toEqual({
      $and: [{ _id: { $eq: 'x' } }, { amount: { $gte: 1 } }, { amount: { $lt: 5 } }, { note: { $eq: null } }],
    });
    expect(toMongoFilter([])).toEqual({});
  });

  it('translates $exists: true to "not null"', () => {
    expect(toMongoFilter(normalizeFilter({ 'a.b': { $exists: true } }))).toEqual({ $and: [{ 'a.b': { $ne: null } }] });
  });

  it('sorts with _id as the tie-breaker', () => {
    expect(toMongoSort([{ path: 'amount', dir: -1 }])).toEqual({ amount: -1, _id: 1 });
    expect(toMongoSort([{ path: 'id', dir: -1 }])).toEqual({ _id: -1 });
    expect(toMongoKeys(['status', 'id'])).toEqual({ status: 1, _id: 1 });
  });
});
