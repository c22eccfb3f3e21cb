import type { Collection as Native } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '@paymesh/core';
import { MongoCollection } from './collection';
import type { MongoDoc } from './filter';

/** Just enough of a driver collection to see which commands the adapter sends. */
function fakeNative(docs: MongoDoc[]) {
  const calls: string[] = [];
  const native = {
    find: () => {
      calls.push('find');
      const cursor = { skip: () => cursor, limit: () => cursor, toArray: async () => docs };
      return cursor;
    },
    countDocuments: async () => {
      calls.push('countDocuments');
      return 42;
    },
    replaceOne: async (filter: { _id: string; version: number }) => {
      calls.push('replaceOne');
      const hit = docs.find((d) => d._id === filter._id && d.version === filter.version);
      return { matchedCount: hit ? 1 : 0 };
    },
    findOne: async (filter: { _id: string }) => {
      calls.push('findOne');
      return docs.find((d) => d._id === filter._id) ?? null;
    },
  };
  // A fake of the few driver methods the adapter calls here.
  const typed: Native<MongoDoc> = native as any;
  return { native: typed, calls };
}

describe('MongoCollection', () => {
  it('counts only when a paged find asks for the total', async () => {
    const { native, calls } = fakeNative([{ _id: 'a', version: 1, n: 1 }]);
    const col = new MongoCollection<{ id: string; version: number; n: number }>('things', native);
    const page = await col.find({}, { limit: 1 });
    expect(page).toEqual({ items: [{ id: 'a', version: 1, n: 1 }], page: 1, limit: 1 });
    expect(calls).toEqual(['find']);
    const counted = await col.find({}, { limit: 1, total: true });
    expect(counted.total).toBe(42);
    expect(calls).toEqual(['find', 'find', 'countDocuments']);
  });

  it('compare-and-sets with the version in the filter; a miss says conflict or not found', async () => {
    const { native, calls } = fakeNative([{ _id: 'a', version: 2, n: 1 }]);
    const col = new MongoCollection<{ id: string; version: number; n: number }>('things', native);
    await expect(col.replace('a', 2, { n: 5 })).resolves.toEqual({ id: 'a', version: 3, n: 5 });
    expect(calls).toEqual(['replaceOne']);
    await expect(col.replace('a', 1, { n: 6 })).rejects.toBeInstanceOf(ConflictError);
    await expect(col.replace('b', 1, { n: 6 })).rejects.toBeInstanceOf(NotFoundError);
  });
});
