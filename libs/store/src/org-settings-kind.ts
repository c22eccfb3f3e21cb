import type { Clock, TenantKey } from '@paymesh/core';
import { findOrgSettings, updateOrgSettings, type OrgSettingsDoc } from './org-settings';
import type { DocumentStore } from './port';

/** One kind of an organization's settings: where they are kept and what a read or a save answers. */
export interface OrgSettingsKind<T, V> {
  collection: string;
  /** Names the kind in the log line of a save (`tax`: "tax settings updated"). */
  name: string;
  /** The settings before the first save. */
  defaults: () => T;
  /** The answer of a read or a save: of the stored document, or of none before the first save. */
  view: (doc: OrgSettingsDoc<T> | null) => V;
  /** What the log line of a save shows of the saved settings (else the settings as stored). */
  logged?: (settings: T) => unknown;
}

/** What a save of settings uses. */
export interface OrgSettingsDeps {
  store: DocumentStore;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void };
}

/** The organization's settings of the kind in the mode, as the kind shows them. */
export async function readOrgSettings<T, V>(
  store: DocumentStore,
  kind: OrgSettingsKind<T, V>,
  key: TenantKey,
): Promise<V> {
  return kind.view(await findOrgSettings<T>(store, kind.collection, key.organizationId, key.mode));
}

/**
 * Saves a merge patch: `mutate` gets the stored settings (the defaults before the first save) and
 * may throw to refuse the patch, writing nothing (see {@link updateOrgSettings}); the saved settings
 * are logged. An empty patch writes nothing and answers a read.
 */
export async function patchOrgSettings<T, V>(
  deps: OrgSettingsDeps,
  kind: OrgSettingsKind<T, V>,
  key: TenantKey,
  patch: object,
  mutate: (current: T) => T,
): Promise<V> {
  if (Object.keys(patch).length === 0) return readOrgSettings(deps.store, kind, key);
  const doc = await updateOrgSettings<T>(
    deps.store,
    kind.collection,
    key,
    deps.clock.now().toISOString(),
    kind.defaults,
    mutate,
  );
  const settings = kind.logged ? kind.logged(doc.settings) : doc.settings;
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, settings }, `${kind.name} settings updated`);
  return kind.view(doc);
}
