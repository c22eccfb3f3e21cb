import type { StoredDoc } from '@paymesh/store';

/** A stored document without the store-managed `id` and `version` (what replace/insert take). */
export function fieldsOf<T extends StoredDoc>(doc: T): Omit<T, 'id' | 'version'> {
  const { id: _id, version: _version, ...fields } = doc;
  return fields;
}
