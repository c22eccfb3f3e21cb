import { ValidationError } from '@paymesh/core';
import type { CollectionSpec, IndexSpec } from './port';

const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Names the store keeps for itself inside every service database. */
export const RESERVED_COLLECTIONS: ReadonlySet<string> = new Set(['_outbox', '_sequences']);

/** Throws ValidationError unless `path` is a dotted field path such as `billing.country`. */
export function assertFieldPath(path: string): void {
  if (!FIELD_PATH.test(path)) {
    throw new ValidationError(`invalid field path: ${JSON.stringify(path)}`, { field: path });
  }
}

/** Database (schema) and collection (table) names: a portable subset of both backends' rules. */
export function assertIdentifier(name: string, what: string): void {
  if (!IDENTIFIER.test(name)) {
    throw new ValidationError(`invalid ${what} name: ${JSON.stringify(name)}`);
  }
}

export function assertCollectionName(name: string): void {
  assertIdentifier(name, 'collection');
  if (RESERVED_COLLECTIONS.has(name)) {
    throw new ValidationError(`collection name ${name} is reserved by the store`);
  }
}

export function assertIndexSpec(spec: IndexSpec): void {
  assertIdentifier(spec.name, 'index');
  if (!Array.isArray(spec.fields) || spec.fields.length === 0) {
    throw new ValidationError(`index ${spec.name} needs at least one field`);
  }
  spec.fields.forEach(assertFieldPath);
  if (
    spec.array &&
    (spec.unique || spec.fields.length !== 1 || spec.fields[0] === 'id' || spec.fields[0] === 'version')
  ) {
    throw new ValidationError(`index ${spec.name}: an array index covers one document field and is not unique`);
  }
  for (const [field, condition] of Object.entries(spec.where ?? {})) {
    assertFieldPath(field);
    const keys = typeof condition === 'object' && condition !== null ? Object.keys(condition) : [];
    if (keys.length !== 1 || keys[0] !== '$exists' || typeof condition.$exists !== 'boolean' || spec.unique) {
      throw new ValidationError(
        `index ${spec.name}: where takes { field: { $exists: boolean } } (not on unique indexes)`,
      );
    }
  }
  for (const field of spec.descending ?? []) {
    if (!spec.fields.includes(field) || spec.array) {
      throw new ValidationError(`index ${spec.name}: descending ${field} is none of its fields (or an array index)`);
    }
  }
}

/** Checks a collection spec: its name, indexes, field type declarations and dropped indexes (not its text index). */
export function assertCollectionSpec(spec: CollectionSpec): void {
  assertCollectionName(spec.name);
  (spec.indexes ?? []).forEach(assertIndexSpec);
  for (const [field, type] of Object.entries(spec.fieldTypes ?? {})) {
    assertFieldPath(field);
    if (field === 'id' || field === 'version' || (type !== 'string' && type !== 'number')) {
      throw new ValidationError(`fieldTypes.${field}: a document field declared 'string' or 'number'`);
    }
  }
  const kept = new Set((spec.indexes ?? []).map((ix) => ix.name));
  for (const name of spec.dropIndexes ?? []) {
    assertIdentifier(name, 'index');
    if (kept.has(name)) throw new ValidationError(`index ${name} is both kept and dropped`);
  }
}
