import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropStoreDatabase, PostgresStore, type CollectionSpec, type Filter, type FindOptions } from '../src';
import { findStatements, type Statement } from '../src/postgres/collection';
import type { FieldTypes } from '../src/postgres/sql';
import { TEST_PG_URL, testDatabase } from '../../../test/support/kit';

/**
 * The dashboard's transactions list on PostgreSQL: a page of a merchant's transactions, newest
 * first, must walk an index (no sort of every match), filtered by status or a date range too, and
 * its total must stop counting at a bound. Checked on the plans PostgreSQL makes for the store's
 * own statements over a table of 60,000 documents.
 */
const database = testDatabase('store_sorted');
const COLLECTION = 'payments';
const N = 60_000;
const ORG = 'a'.repeat(24);

/** The transactions collection's shape before: an index over createdAt's text in the default collation. */
const before: CollectionSpec = {
  name: COLLECTION,
  indexes: [
    { name: 'org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] },
    // As the transactions' search index: a full index gives the planner statistics on the merchant.
    { name: 'org_mode_reference', fields: ['organizationId', 'mode', 'externalReference'] },
  ],
};
/** And after: createdAt declared a string, the index in the sort's order with the id as tie-breaker. */
const after: CollectionSpec = {
  name: COLLECTION,
  fieldTypes: { createdAt: 'string', status: 'number' },
  indexes: [
    {
      name: 'org_mode_created_id',
      fields: ['organizationId', 'mode', 'createdAt', 'id'],
      descending: ['createdAt'],
      where: { deletedAt: { $exists: false } },
    },
    {
      name: 'org_mode_status_created_id',
      fields: ['organizationId', 'mode', 'status', 'createdAt', 'id'],
      descending: ['createdAt'],
      where: { deletedAt: { $exists: false } },
    },
    { name: 'org_mode_reference', fields: ['organizationId', 'mode', 'externalReference'] },
  ],
  dropIndexes: ['org_mode_created'],
};
const TYPES: FieldTypes = { createdAt: 'string', status: 'number' };

const list: Filter = { organizationId: ORG, mode: 'live', deletedAt: { $exists: false } };
const newestFirst: FindOptions = { sort: { createdAt: -1 }, limit: 20, total: true };

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe('PostgreSQL: index-served pages of a large list', () => {
  let store: PostgresStore;
  let client: Client;
  const table = `"${database}"."${COLLECTION}"`;

  async function plan(statement: Statement): Promise<PlanNode[]> {
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const root = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!root) throw new Error('no plan');
    return nodes(root);
  }

  const pagePlan = (filter: Filter, options: FindOptions, types: FieldTypes = TYPES) =>
    plan(findStatements(table, filter, options, types).page);

  /** The index scans of a plan, by index name, and whether it sorts. */
  const shape = (plan: PlanNode[]) => ({
    indexes: plan.filter((n) => n['Node Type'].startsWith('Index')).map((n) => n['Index Name']),
    sorts: plan.some((n) => n['Node Type'].includes('Sort')),
  });

  beforeAll(async () => {
    store = new PostgresStore({ url: TEST_PG_URL, database });
    client = new Client({ connectionString: TEST_PG_URL });
    await client.connect();
    await store.ensureCollection(before);
    // A merchant with most of the documents (every 10th is someone else's, every 50th a test-mode
    // one), five statuses, one a second apart, a few soft-deleted.
    await client.query(
      `INSERT INTO ${table} (id, version, doc)
       SELECT lpad(to_hex(g), 24, '0'), 1, jsonb_build_object(
         'organizationId', CASE WHEN g % 10 = 0 THEN '${'b'.repeat(24)}' ELSE '${ORG}' END,
         'mode', CASE WHEN g % 50 = 1 THEN 'test' ELSE 'live' END,
         'status', g % 5 - 1,
         'amount', g,
         'deletedAt', CASE WHEN g % 997 = 0 THEN to_jsonb('2026-01-01T00:00:00.000Z'::text) ELSE 'null'::jsonb END,
         'createdAt', to_char(timestamp '2025-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
       FROM generate_series(1, ${N}) AS g`,
    );
    await client.query(`VACUUM ANALYZE ${table}`);
  });

  afterAll(async () => {
    await client?.end();
    await store?.close();
    await dropStoreDatabase({ url: TEST_PG_URL, database });
  });

  it('before: the type-aware order cannot use the createdAt index and sorts every match', async () => {
    expect(shape(await pagePlan(list, { ...newestFirst, page: 2 }, {})).sorts).toBe(true);
  });

  it('an existing database gets the new indexes and sheds the replaced one', async () => {
    await store.ensureCollection(after);
    await store.ensureCollection(after);
    await client.query(`VACUUM ANALYZE ${table}`);
    const { rows } = await client.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
      [database, COLLECTION],
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      `${COLLECTION}__org_mode_created_id`,
      `${COLLECTION}__org_mode_reference`,
      `${COLLECTION}__org_mode_status_created_id`,
      `${COLLECTION}_pkey`,
    ]);
    expect(rows[0]?.indexdef).toContain(`COLLATE "C" DESC NULLS LAST, id COLLATE "C") WHERE (COALESCE(jsonb_typeof`);
  });

  it('a page of the newest first walks the index, at the start and deep into the list', async () => {
    for (const page of [1, 2, 50]) {
      expect(shape(await pagePlan(list, { ...newestFirst, page }))).toEqual({
        indexes: [`${COLLECTION}__org_mode_created_id`],
        sorts: false,
      });
    }
  });

  it('a status or a date range filters in the index and still needs no sort', async () => {
    expect(shape(await pagePlan({ ...list, status: { $in: [2] } }, { ...newestFirst, page: 3 }))).toEqual({
      indexes: [`${COLLECTION}__org_mode_status_created_id`],
      sorts: false,
    });
    const range = { createdAt: { $gte: '2025-01-01T05:00:00.000Z', $lte: '2025-01-01T09:00:00.000Z' } };
    const ranged = await pagePlan({ ...list, ...range }, { ...newestFirst, page: 2 });
    expect(shape(ranged)).toEqual({ indexes: [`${COLLECTION}__org_mode_created_id`], sorts: false });
    expect(ranged.find((n) => n['Index Name'])?.['Index Cond']).toContain('createdAt');
  });

  it('the bounded total stops at the bound, and the store reports it as a lower bound', async () => {
    const { count } = findStatements(table, list, { ...newestFirst, countUpTo: 10_001 }, TYPES);
    const counting = await plan(count);
    expect(counting.some((n) => n['Node Type'] === 'Limit')).toBe(true);
    // In the list's order along the (partial) index: no sort, and no row's JSON tested.
    const scans = counting.filter((n) => n['Node Type'].includes('Scan'));
    expect(scans.map((n) => [n['Node Type'], n['Index Name'], n.Filter])).toEqual([
      ['Index Scan', `${COLLECTION}__org_mode_created_id`, undefined],
    ]);

    const page = await store.collection(COLLECTION).find(list, { ...newestFirst, page: 2, countUpTo: 10_001 });
    expect(page).toMatchObject({ total: 10_001, totalIsLowerBound: true, page: 2, limit: 20 });
    const exact = await store
      .collection(COLLECTION)
      .find({ ...list, createdAt: { $lt: '2025-01-01T00:10:00.000Z' } }, { ...newestFirst, countUpTo: 10_001 });
    expect(exact.totalIsLowerBound).toBeUndefined();
    expect(exact.total).toBe(
      await store.collection(COLLECTION).count({ ...list, createdAt: { $lt: '2025-01-01T00:10:00.000Z' } }),
    );
  });

  it('pages through the index in the same order as the full sort', async () => {
    const col = store.collection<{ id: string; version: number; createdAt: string }>(COLLECTION);
    const page = await col.find(list, { ...newestFirst, page: 7 });
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM ${table} WHERE doc->>'organizationId' = $1 AND doc->>'mode' = 'live' AND jsonb_typeof(doc->'deletedAt') IS DISTINCT FROM 'string'
       ORDER BY doc->>'createdAt' COLLATE "C" DESC, id COLLATE "C" LIMIT 20 OFFSET 120`,
      [ORG],
    );
    expect(page.items.map((d) => d.id)).toEqual(rows.map((r) => r.id));
  });
});
