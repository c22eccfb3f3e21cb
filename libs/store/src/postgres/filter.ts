import type { Condition, RangeOp, SortKey } from '../filter';
import type { Scalar } from '../port';
import { SqlParams, target, typedDirection, typedExpression, typeOf, type FieldTypes } from './sql';

const RANGE_SQL: Record<RangeOp, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

const typeIs = (json: string, type: string) => `jsonb_typeof(${json}) = '${type}'`;
/*
 * Type tests the planner, which has no statistics on them, takes for true of nearly every row (a
 * list of inequalities, not one equality it would guess true of 0.5 % of the rows): under-estimated
 * matches make it sort "a handful of rows" instead of walking an index that gives their order.
 */
/** Missing or JSON null. */
const isNullish = (json: string) =>
  `coalesce(jsonb_typeof(${json}), 'null') <> ALL ('{string,number,boolean,object,array}'::text[])`;
/** A string, beside a comparison of the field's text (which a missing or null field never passes). */
const isStringBeside = (json: string) => `jsonb_typeof(${json}) <> ALL ('{number,boolean,object,array}'::text[])`;
/** A number, beside a jsonb comparison of the field (JSON null orders below numbers, so it is excluded here). */
const isNumberBeside = (json: string) =>
  `jsonb_typeof(${json}) <> ALL ('{string,boolean,object,array,"null"}'::text[])`;

/**
 * Whether a string could be the text (`#>>`) of a JSON value that is not a string: that text is
 * always the JSON of a number, boolean, object or array. Otherwise a text comparison alone already
 * means "a string equal to it", with no type test for the row to pass (an index can then answer
 * it without reading the row).
 */
function textOfNonString(value: string): boolean {
  try {
    return typeof JSON.parse(value) !== 'string';
  } catch {
    return false;
  }
}

/**
 * The text form strings compare through, so an expression index on it applies: (doc #>> path),
 * bytewise (COLLATE "C") for a field declared `string`, whose indexes are built that way.
 */
const textOf = (path: string, text: string, types: FieldTypes) =>
  typeOf(types, path) === 'string' ? `${text} COLLATE "C"` : text;

function eq(path: string, value: Scalar, p: SqlParams, types: FieldTypes): string {
  const t = target(path);
  if (t.kind === 'id') return typeof value === 'string' ? `id = ${p.add(value)}` : 'FALSE';
  if (t.kind === 'version') return typeof value === 'number' ? `version = ${p.add(value)}::numeric` : 'FALSE';
  if (value === null) return isNullish(t.json);
  if (typeof value === 'string') {
    const compare = `${textOf(path, t.text, types)} = ${p.add(value)}`;
    return textOfNonString(value) ? `(${compare} AND ${isStringBeside(t.json)})` : compare;
  }
  return `${t.json} = ${p.add(JSON.stringify(value))}::jsonb`;
}

function oneOf(path: string, values: Scalar[], p: SqlParams, types: FieldTypes): string {
  // One value is an equality, which an index serves in order (a list of values it does not).
  const [only] = values;
  if (values.length === 1 && only !== undefined) return eq(path, only, p, types);
  const t = target(path);
  const strings = values.filter((v): v is string => typeof v === 'string');
  const numbers = values.filter((v): v is number => typeof v === 'number');
  if (t.kind === 'id') return strings.length ? `id = ANY(${p.add(strings)}::text[])` : 'FALSE';
  if (t.kind === 'version') return numbers.length ? `version = ANY(${p.add(numbers)}::numeric[])` : 'FALSE';
  const others = values.filter((v) => typeof v === 'number' || typeof v === 'boolean').map((v) => JSON.stringify(v));
  const parts: string[] = [];
  if (strings.length) {
    const compare = `${textOf(path, t.text, types)} = ANY(${p.add(strings)}::text[])`;
    parts.push(strings.some(textOfNonString) ? `(${compare} AND ${isStringBeside(t.json)})` : compare);
  }
  if (others.length) parts.push(`${t.json} = ANY(${p.add(others)}::jsonb[])`);
  if (values.includes(null)) parts.push(isNullish(t.json));
  return parts.length ? `(${parts.join(' OR ')})` : 'FALSE';
}

/** Ranges only match values of the operand's JSON type (numbers numerically, strings bytewise). */
function range(path: string, op: RangeOp, value: string | number, p: SqlParams, types: FieldTypes): string {
  const t = target(path);
  const sqlOp = RANGE_SQL[op];
  const numeric = typeof value === 'number';
  if (t.kind === 'id') return numeric ? 'FALSE' : `id COLLATE "C" ${sqlOp} ${p.add(value)}`;
  if (t.kind === 'version') return numeric ? `version ${sqlOp} ${p.add(value)}::numeric` : 'FALSE';
  // A declared field compares by its indexed expression; the type test keeps other values out.
  const typed = typedExpression(path, types);
  if (typed !== undefined && typeOf(types, path) === (numeric ? 'number' : 'string')) {
    const operand = numeric ? `${p.add(JSON.stringify(value))}::jsonb` : p.add(value);
    return `(${typed} ${sqlOp} ${operand} AND ${numeric ? isNumberBeside(t.json) : isStringBeside(t.json)})`;
  }
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

export function conditionSql(c: Condition, p: SqlParams, types: FieldTypes = {}): string {
  switch (c.op) {
    case 'eq':
      return eq(c.path, c.value, p, types);
    case 'ne':
      return not(eq(c.path, c.value, p, types));
    case 'in':
      return oneOf(c.path, c.values, p, types);
    case 'nin':
      return not(oneOf(c.path, c.values, p, types));
    case 'exists':
      return exists(c.path, c.value);
    case 'has':
      return has(c.path, c.value, p);
    default:
      return range(c.path, c.op, c.value, p, types);
  }
}

/** `WHERE ...` for the conditions (empty string when there are none); `types`: the collection's declared field types. */
export function whereSql(conditions: Condition[], p: SqlParams, types: FieldTypes = {}): string {
  if (conditions.length === 0) return '';
  return `WHERE ${conditions.map((c) => conditionSql(c, p, types)).join(' AND ')}`;
}

/**
 * Orders like MongoDB does: by JSON type first (missing/null, numbers, strings, objects, arrays,
 * booleans), then numbers numerically and strings bytewise, so both adapters page identically.
 * The id breaks ties, making pages stable. A field of a declared type (`types`) orders by its
 * value alone, the expression and order its indexes are built with (same order while the
 * declaration holds), so an index can serve the sort.
 */
export function orderSql(sort: SortKey[], types: FieldTypes = {}): string {
  const keys: string[] = [];
  for (const { path, dir } of sort) {
    const d = dir === 1 ? 'ASC' : 'DESC';
    const t = target(path);
    const typed = typedExpression(path, types);
    if (t.kind === 'id') keys.push(`id COLLATE "C" ${d}`);
    else if (t.kind === 'version') keys.push(`version ${d}`);
    else if (typed !== undefined) keys.push(`${typed} ${typedDirection(dir)}`);
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
