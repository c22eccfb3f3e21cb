import type { StoredDoc } from '@paymesh/store';

/** A document without the store-maintained `id` and `version`, ready for replace/update. */
export function body<T extends StoredDoc>(doc: T): Omit<T, 'id' | 'version'> {
  const { id: _id, version: _version, ...rest } = doc;
  return rest;
}
