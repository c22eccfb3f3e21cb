import type { Condition, RangeOp, SortKey } from '../filter';
import type { Scalar } from '../port';
import { SqlParams, target } from './sql';

const RANGE_SQL: Record<RangeOp, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

const isNullish = (json: string) => `coalesce(jsonb_typeof(${json}), 'null') = 'null'`;
const typeIs = (json: string, type: string) => `jsonb_typeof(${json}) = '${type}'`;

function eq(path: string, value: Scalar, p: SqlParams): string {
  const t = target(path);
  if (t.kind === 'id') return typeof value === 'string' ? `id = ${p.add(value)}` : 'FALSE';
  if (t.kind === 'version') return typeof value === 'number' ? `version = ${p.add(value)}::numeric` : 'FALSE';
  if (value === null) return isNullish(t.json);
  // Strings compare through the text form so an expression index on (doc #>> path) applies.
  if (typeof value === 'string') return `(${t.text} = ${p.add(value)} AND ${typeIs(t.json, 'string')})`;
  return `${t.json} = ${p.add(JSON.stringify(value))}::jsonb`;
}

function oneOf(path: string, values: Scalar[], p: SqlParams): string {
  const t = target(path);
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  if (t.kind === 'id') return strings.length ? `id = ANY(${p.add(strings)}::text[])` : 'FALSE';
  if (t.kind === 'version') return numbers.length ? `version = ANY(${p.add(numbers)}::numeric[])` : 'FALSE';
  const others = values.filter((v) => typeof v === 'number' || typeof v === 'boolean').map((v) => JSON.stringify(v));
  const parts: string[] = [];
  if (strings.length) parts.push(`(${t.text} = ANY(${p.add(strings)}::text[]) AND ${typeIs(t.json, 'string')})`);
  if (others.length) parts.push(`${t.json} = ANY(${p.add(others)}::jsonb[])`);
  if (values.includes(null)) parts.push(isNullish(t.json));
  return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
}

/** Ranges only match values of the operand's JSON type (numbers numerically, strings bytewise). */
function range(path: string, op: RangeOp, value: string | number, p: SqlParams): string {
  const t = target(path);
  const sqlOp = RANGE_SQL[op];
  const numeric = typeof value === 'number';
  if (t.kind === 'id') return numeric ? 'FALSE' : `id COLLATE "C" ${sqlOp} ${p.add(value)}`;
  if (t.kind === 'version') return numeric ? `version ${sqlOp} ${p.add(value)}::numeric` : 'FALSE';
  if (numeric) {
    return `(CASE WHEN ${typeIs(t.json, 'number')} THEN ${t.text}::numeric END) ${sqlOp} ${p.add(value)}::numeric`;
  }
  return `(CASE WHEN ${typeIs(t.json, 'string')} THEN ${t.text} END) COLLATE "C" ${sqlOp} ${p.add(value)}`;
}

/** Array containment (`@>`), the expression a GIN index over the array serves. */
function has(path: string, value: string | number | boolean, p: SqlParams): string {
  const t = target(path);
  if (t.kind !== 'doc') return 'FALSE';
  return `(${typeIs(t.json, 'array')} AND ${t.json} @> ${p.add(JSON.stringify([value]))}::jsonb)`;
}

function exists(path: string, value: boolean): string {
  const t = target(path);
  if (t.kind !== 'doc') return value ? 'TRUE' : 'FALSE';
  return value ? `NOT ${isNullish(t.json)}` : isNullish(t.json);
}

// A missing field makes comparisons NULL; negations must still match it (as MongoDB does).
const not = (expr: string) => `NOT coalesce(${expr}, FALSE)`;

export function conditionSql(c: Condition, p: SqlParams): string {
  switch (c.op) {
    case 'eq':
      return eq(c.path, c.value, p);
    case 'ne':
      return not(eq(c.path, c.value, p));
    case 'in':
      return oneOf(c.path, c.values, p);
    case 'nin':
      return not(oneOf(c.path, c.values, p));
    case 'exists':
      return exists(c.path, c.value);
    case 'has':
      return has(c.path, c.value, p);
    default:
      return range(c.path, c.op, c.value, p);
  }
}

/** `WHERE ...` for the conditions (empty string when there are none). */
export function whereSql(conditions: Condition[], p: SqlParams): string {
  if (conditions.length === 0) return '';
  return `WHERE ${conditions.map((c) => conditionSql(c, p)).join(' AND ')}`;
}

/**
 * Orders like MongoDB does: by JSON type first (missing/null, numbers, strings, objects, arrays,
 * booleans), then numbers numerically and strings bytewise, so both adapters page identically.
 * The id breaks ties, making pages stable.
 */
export function orderSql(sort: SortKey[]): string {
  const keys: string[] = [];
  for (const { path, dir } of sort) {
    const d = dir === 1 ? 'ASC' : 'DESC';
    const t = target(path);
    if (t.kind === 'id') keys.push(`id COLLATE "C" ${d}`);
    else if (t.kind === 'version') keys.push(`version ${d}`);
    else {
      const type = `jsonb_typeof(${t.json})`;
      keys.push(
        `CASE ${type} WHEN 'number' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 3 WHEN 'array' THEN 4 WHEN 'boolean' THEN 5 ELSE 0 END ${d}`,
        `(CASE WHEN ${type} = 'number' THEN ${t.text}::numeric END) ${d}`,
        `(CASE WHEN ${type} = 'string' THEN ${t.text} END) COLLATE "C" ${d}`,
        `${t.json} ${d}`,
      );
    }
  }
  if (!sort.some((s) => s.path === 'id')) keys.push('id COLLATE "C" ASC');
  return `ORDER BY ${keys.join(', ')}`;
}
