import { describe, expect, it } from 'vitest';
import type { Collection, CountedPage, Filter, FindOptions, StoredDoc } from './port';
import { liveTenantRecords } from './tenant-records';

describe('liveTenantRecords', () => {
  it("asks for the tenant's records not marked deleted, newest first, with the total", async () => {
    const page: CountedPage<StoredDoc> = { items: [], total: 0, page: 2, limit: 25 };
    const asked: Array<[Filter, FindOptions | undefined]> = [];
    const collection: Pick<Collection<StoredDoc>, 'find'> = {
      find: async (filter: Filter, options?: FindOptions) => {
        asked.push([filter, options]);
        return page;
      },
    };
    await expect(liveTenantRecords(collection, { organizationId: 'org_1', mode: 'test' }, 2, 25)).resolves.toBe(page);
    expect(asked).toEqual([
      [
        { organizationId: 'org_1', mode: 'test', deletedAt: { $exists: false } },
        { sort: { createdAt: -1 }, page: 2, limit: 25, total: true },
      ],
    ]);
  });
});
