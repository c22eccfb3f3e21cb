import { describe, expect, it } from 'vitest';
import { normalizeFilter } from '../filter';
import { orderSql, whereSql } from './filter';
import { SqlParams, type FieldTypes } from './sql';

const where = (filter: Parameters<typeof normalizeFilter>[0], types: FieldTypes = {}) => {
  const p = new SqlParams();
  return { sql: whereSql(normalizeFilter(filter), p, types), values: p.values };
};

describe('postgres filter translation', () => {
  it('binds every value and inlines only validated paths', () => {
    const { sql, values } = where({ 'billing.country': "DE' OR 1=1 --", amount: 5 });
    expect(sql).toBe(`WHERE (doc #>> '{billing,country}') = $1 AND (doc #> '{amount}') = $2::jsonb`);
    expect(values).toEqual(["DE' OR 1=1 --", '5']);
  });

  it('tests the type beside a text comparison only when a number, boolean, object or array has that text', () => {
    const typed = `AND jsonb_typeof((doc #> '{ref}')) <> ALL ('{number,boolean,object,array}'::text[]))`;
    for (const text of ['12', 'true', '{"a":1}', '[]', ' 5']) expect(where({ ref: text }).sql).toContain(typed);
    for (const text of ['x12', '"12"', 'live', '2026-01-01'])
      expect(where({ ref: text }).sql).toBe(`WHERE (doc #>> '{ref}') = $1`);
    expect(where({ ref: { $in: ['a', '1'] } }).sql).toContain(typed);
    expect(where({ ref: { $in: ['a', 'b'] } }).sql).toBe(`WHERE ((doc #>> '{ref}') = ANY($1::text[]))`);
  });

  it('compares number ranges numerically and string ranges bytewise', () => {
    expect(where({ amount: { $gt: 9 } }).sql).toContain(`(doc #>> '{amount}')::numeric END) > $1::numeric`);
    expect(where({ issuedAt: { $lt: '2024' } }).sql).toContain(`END) COLLATE "C" < $1`);
  });

  it('maps id and version to their columns', () => {
    expect(where({ id: 'abc' }).sql).toBe('WHERE id = $1');
    expect(where({ id: { $in: ['a', 'b'] } })).toEqual({ sql: 'WHERE id = ANY($1::text[])', values: [['a', 'b']] });
    expect(where({ version: { $gte: 2 } }).sql).toBe('WHERE version >= $1::numeric');
    expect(where({ id: 5 }).sql).toBe('WHERE FALSE');
  });

  it('negations also match missing fields', () => {
    expect(where({ status: { $ne: 'x' } }).sql).toMatch(/^WHERE NOT coalesce\(.*, FALSE\)$/);
    expect(where({ status: { $nin: ['x', 1, null] } }).values).toEqual([['x'], ['1']]);
  });

  it('an empty $in matches nothing and an empty filter everything', () => {
    expect(where({ a: { $in: [] } }).sql).toBe('WHERE FALSE');
    expect(where({}).sql).toBe('');
  });

  it('orders by JSON type, then value, then id', () => {
    const sql = orderSql([{ path: 'amount', dir: -1 }]);
    expect(sql).toMatch(
      /^ORDER BY CASE jsonb_typeof\(\(doc #> '\{amount\}'\)\) .* DESC, .*::numeric END\) DESC, .* DESC, id COLLATE "C" ASC$/,
    );
    expect(orderSql([{ path: 'id', dir: -1 }])).toBe('ORDER BY id COLLATE "C" DESC');
  });

  it('a one-value $in is an equality, which an index serves in order', () => {
    expect(where({ status: { $in: [2] } })).toEqual(where({ status: 2 }));
    expect(where({ siteId: { $in: ['s'] } })).toEqual(where({ siteId: 's' }));
    expect(where({ siteId: { $nin: ['s'] } })).toEqual(where({ siteId: { $ne: 's' } }));
  });

  it('a declared field filters and sorts by the expression its indexes are built on', () => {
    const types: FieldTypes = { createdAt: 'string', status: 'number' };
    expect(where({ createdAt: { $gte: '2026' } }, types).sql).toBe(
      `WHERE ((doc #>> '{createdAt}') COLLATE "C" >= $1 AND jsonb_typeof((doc #> '{createdAt}')) <> ALL ('{number,boolean,object,array}'::text[]))`,
    );
    expect(where({ status: { $lt: 3 } }, types)).toEqual({
      sql: `WHERE ((doc #> '{status}') < $1::jsonb AND jsonb_typeof((doc #> '{status}')) <> ALL ('{string,boolean,object,array,"null"}'::text[]))`,
      values: ['3'],
    });
    expect(orderSql([{ path: 'createdAt', dir: -1 }], types)).toBe(
      `ORDER BY (doc #>> '{createdAt}') COLLATE "C" DESC NULLS LAST, id COLLATE "C" ASC`,
    );
    expect(orderSql([{ path: 'status', dir: 1 }], types)).toBe(
      `ORDER BY (doc #> '{status}') ASC NULLS FIRST, id COLLATE "C" ASC`,
    );
    // Undeclared fields keep the type-aware order.
    expect(orderSql([{ path: 'amount', dir: 1 }], types)).toContain('CASE jsonb_typeof');
  });
});
