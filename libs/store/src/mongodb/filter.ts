import type { Filter as MongoFilter, Sort } from 'mongodb';
import type { Condition, SortKey } from '../filter';

/** Shape of a stored MongoDB document: `_id` is the 24-hex id string. */
export interface MongoDoc {
  _id: string;
  version: number;
  [field: string]: unknown;
}

const field = (path: string) => (path === 'id' ? '_id' : path);

function operator(c: Condition): Record<string, unknown> {
  switch (c.op) {
    case 'eq':
      return { $eq: c.value };
    case 'ne':
      return { $ne: c.value };
    case 'in':
      return { $in: c.values };
    case 'nin':
      return { $nin: c.values };
    case 'exists':
      // The port's $exists means "present and not null"; MongoDB's `null` equality covers both.
      return c.value ? { $ne: null } : { $eq: null };
    case 'has':
      // Only arrays: `$elemMatch` never matches a scalar field equal to the value.
      return { $elemMatch: { $eq: c.value } };
    default:
      // Type bracketing makes number operands match numbers only and strings strings only.
      return { [`$${c.op}`]: c.value };
  }
}

/** Each condition is its own `$and` clause so several operators on one path never collide. */
export function toMongoFilter(conditions: Condition[]): MongoFilter<MongoDoc> {
  if (conditions.length === 0) return {};
  return { $and: conditions.map((c) => ({ [field(c.path)]: operator(c) })) };
}

/** Sort with `_id` as the final tie-breaker, as the PostgreSQL adapter does. */
export function toMongoSort(sort: SortKey[]): Sort {
  const spec: Record<string, 1 | -1> = {};
  for (const { path, dir } of sort) spec[field(path)] = dir;
  if (!('_id' in spec)) spec._id = 1;
  return spec;
}

/** Index keys for `ensureCollection`: 1, or -1 for the fields in `descending`. */
export function toMongoKeys(fields: string[], descending: readonly string[] = []): Record<string, 1 | -1> {
  const keys: Record<string, 1 | -1> = {};
  for (const f of fields) keys[field(f)] = descending.includes(f) ? -1 : 1;
  return keys;
}
