import { ConflictError } from '@paymesh/core';
import type { DocumentStore, StoredDoc } from './port';
import type { Mode } from '@paymesh/core';

export type { Mode } from '@paymesh/core';

/** One settings document per organization and data mode (unique index on both). */
export interface OrgSettingsDoc<T> extends StoredDoc {
  organizationId: string;
  mode: Mode;
  settings: T;
  createdAt: string;
  updatedAt: string;
}

export function findOrgSettings<T>(
  store: DocumentStore,
  collection: string,
  organizationId: string,
  mode: Mode,
): Promise<OrgSettingsDoc<T> | null> {
  return store.collection<OrgSettingsDoc<T>>(collection).findOne({ organizationId, mode });
}

/**
 * Read-modify-write of an organization's settings with compare-and-set: `mutate` gets the stored
 * settings (or the defaults on first write) and may throw to abort without writing anything.
 */
export async function updateOrgSettings<T>(
  store: DocumentStore,
  collection: string,
  key: { organizationId: string; mode: Mode },
  now: string,
  defaults: () => T,
  mutate: (current: T) => T,
): Promise<OrgSettingsDoc<T>> {
  const coll = store.collection<OrgSettingsDoc<T>>(collection);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const existing = await coll.findOne(key);
    if (existing) {
      return coll.update(existing.id, (cur) => ({
        organizationId: cur.organizationId,
        mode: cur.mode,
        settings: mutate(cur.settings),
        createdAt: cur.createdAt,
        updatedAt: now,
      }));
    }
    try {
      return await coll.insert({ ...key, settings: mutate(defaults()), createdAt: now, updatedAt: now });
    } catch (err) {
      // A concurrent first write won the unique index: apply the patch on top of it instead.
      if (!(err instanceof ConflictError && err.code === 'DUPLICATE_KEY')) throw err;
    }
  }
  throw new ConflictError('settings changed concurrently; retry the request');
}
