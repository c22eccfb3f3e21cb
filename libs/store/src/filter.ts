import { ValidationError } from '@paymesh/core';
import { hasUnstorableText } from './documents';
import { assertFieldPath } from './paths';
import type { AggregateSpec, Filter, FindOptions, Scalar, SortSpec } from './port';

/**
 * A filter validated and flattened into single-operator conditions; both adapters translate
 * from this form, so they accept and reject exactly the same filters.
 */
export type Condition =
  | { path: string; op: 'eq' | 'ne'; value: Scalar }
  | { path: string; op: 'in' | 'nin'; values: Scalar[] }
  | { path: string; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number }
  | { path: string; op: 'exists'; value: boolean }
  | { path: string; op: 'has'; value: string | number | boolean };

export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';

export interface SortKey {
  path: string;
  dir: 1 | -1;
}

export interface Paging {
  /** Matches counted at most (FindOptions.countUpTo); absent: all. */
  countUpTo?: number;
  page: number;
  /** Absent: every match. */
  limit: number | undefined;
  offset: number;
}

const OPS: ReadonlySet<string> = new Set([
  '$eq',
  '$ne',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$has',
]);

function isScalar(value: unknown): value is Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  return typeof value === 'number' && Number.isFinite(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function scalar(path: string, op: string, value: unknown): Scalar {
  if (!isScalar(value))
    throw new ValidationError(`${path}.${op} needs a string, number, boolean or null`, { field: path });
  return typeof value === 'string' ? text(path, value) : value;
}

/** No stored string can hold a NUL or a lone surrogate, so a filter asking for one is bad input. */
function text(path: string, value: string): string {
  if (hasUnstorableText(value)) {
    throw new ValidationError(`${path} must not contain a NUL character or an unpaired UTF-16 surrogate`, {
      field: path,
    });
  }
  return value;
}

function scalarList(path: string, op: string, value: unknown): Scalar[] {
  if (!Array.isArray(value)) throw new ValidationError(`${path}.${op} needs an array`, { field: path });
  return value.map((item) => scalar(path, op, item));
}

function rangeValue(path: string, op: string, value: unknown): string | number {
  if (typeof value === 'string') return text(path, value);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new ValidationError(`${path}.${op} needs a string or a number`, { field: path });
}

function opsConditions(path: string, ops: Record<string, unknown>): Condition[] {
  const entries = Object.entries(ops);
  if (entries.length === 0) throw new ValidationError(`no operator given for ${path}`, { field: path });
  return entries.map(([key, value]): Condition => {
    if (!OPS.has(key)) throw new ValidationError(`unsupported operator ${key} on ${path}`, { field: path });
    switch (key) {
      case '$eq':
        return { path, op: 'eq', value: scalar(path, key, value) };
      case '$ne':
        return { path, op: 'ne', value: scalar(path, key, value) };
      case '$in':
        return { path, op: 'in', values: scalarList(path, key, value) };
      case '$nin':
        return { path, op: 'nin', values: scalarList(path, key, value) };
      case '$exists':
        if (typeof value !== 'boolean') throw new ValidationError(`${path}.$exists needs a boolean`, { field: path });
        return { path, op: 'exists', value };
      case '$has': {
        const element = scalar(path, key, value);
        if (element === null)
          throw new ValidationError(`${path}.$has needs a string, number or boolean`, { field: path });
        if (path === 'id' || path === 'version') throw new ValidationError(`${path} is no array`, { field: path });
        return { path, op: 'has', value: element };
      }
      default: {
        const op = key.slice(1);
        if (op !== 'gt' && op !== 'gte' && op !== 'lt' && op !== 'lte') {
          throw new ValidationError(`unsupported operator ${key} on ${path}`, { field: path });
        }
        return { path, op, value: rangeValue(path, key, value) };
      }
    }
  });
}

/** Validates a filter (paths, operators, operand types) and flattens it; throws ValidationError. */
export function normalizeFilter(filter: Filter): Condition[] {
  if (!isPlainObject(filter)) throw new ValidationError('filter must be a plain object');
  const conditions: Condition[] = [];
  for (const [path, spec] of Object.entries(filter)) {
    assertFieldPath(path);
    if (isPlainObject(spec)) conditions.push(...opsConditions(path, spec));
    else conditions.push({ path, op: 'eq', value: scalar(path, '$eq', spec) });
  }
  return conditions;
}

export function normalizeSort(sort: SortSpec | undefined): SortKey[] {
  if (sort === undefined) return [];
  if (!isPlainObject(sort)) throw new ValidationError('sort must be a plain object');
  return Object.entries(sort).map(([path, dir]) => {
    assertFieldPath(path);
    if (dir !== 1 && dir !== -1)
      throw new ValidationError(`sort direction for ${path} must be 1 or -1`, { field: path });
    return { path, dir };
  });
}

export function normalizePaging(options: FindOptions): Paging {
  const { page = 1, limit, countUpTo } = options;
  if (!Number.isSafeInteger(page) || page < 1) throw new ValidationError('page must be an integer >= 1');
  if (countUpTo !== undefined && (!Number.isSafeInteger(countUpTo) || countUpTo < 1))
    throw new ValidationError('countUpTo must be an integer >= 1');
  if (limit === undefined) {
    if (page !== 1) throw new ValidationError('page needs a limit');
    return { page, limit, offset: 0 };
  }
  if (!Number.isSafeInteger(limit) || limit < 1) throw new ValidationError('limit must be an integer >= 1');
  return { page, limit, offset: (page - 1) * limit, ...(countUpTo !== undefined ? { countUpTo } : {}) };
}

/**
 * The total of a page when the page itself proves it: a short page (fewer items than the limit) is
 * the last one, so the total is its offset plus its items, and an empty first page means none.
 * Otherwise (a full page, or an empty page past the first) only a count can tell: undefined.
 */
export function totalFromPage(paging: { offset: number; limit: number }, itemCount: number): number | undefined {
  if (itemCount > 0 && itemCount < paging.limit) return paging.offset + itemCount;
  if (itemCount === 0 && paging.offset === 0) return 0;
  return undefined;
}

/** A path of an aggregation: a document field or (`element`) a field of the unwound array's element. */
export interface AggregatePath {
  path: string;
  element: boolean;
  /** The path inside the document or the element. */
  inner: string;
}

export interface NormalizedAggregate {
  unwind: string | undefined;
  groupBy: AggregatePath[];
  sum: AggregatePath[];
}

/** Validates an aggregation like a filter: both adapters accept and reject the same specs. */
export function normalizeAggregate(spec: AggregateSpec): NormalizedAggregate {
  if (spec.unwind !== undefined) assertFieldPath(spec.unwind);
  const resolve = (path: string): AggregatePath => {
    assertFieldPath(path);
    if (spec.unwind !== undefined && path.startsWith(`${spec.unwind}.`))
      return { path, element: true, inner: path.slice(spec.unwind.length + 1) };
    if (path === spec.unwind)
      throw new ValidationError(`${path}: the unwound array itself cannot be grouped or summed`, { field: path });
    return { path, element: false, inner: path };
  };
  const groupBy = spec.groupBy.map(resolve);
  const sum = spec.sum.map(resolve);
  if (new Set(spec.groupBy).size !== groupBy.length || new Set(spec.sum).size !== sum.length) {
    throw new ValidationError('aggregate paths must not repeat', { field: 'aggregate' });
  }
  return { unwind: spec.unwind, groupBy, sum };
}
