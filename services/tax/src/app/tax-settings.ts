import type { TaxSettingsPatch } from '@paymesh/contracts';
import { applyTaxPatch, defaultTaxSettings, type TaxSettings } from '../domain/tax-settings';
import { TAX_SETTINGS } from '../store/collections';
import { patchOrgSettings, readOrgSettings, type OrgSettingsKind } from '@paymesh/store';
import type { OrgKey, TaxDeps } from './deps';

/** Effective tax settings and when they were last saved (null: never, defaults apply). */
export interface TaxSettingsState {
  settings: TaxSettings;
  updatedAt: string | null;
}

const taxSettings: OrgSettingsKind<TaxSettings, TaxSettingsState> = {
  collection: TAX_SETTINGS,
  name: 'tax',
  defaults: defaultTaxSettings,
  // Fields added after a document was saved take their defaults.
  view: (doc) => ({ settings: { ...defaultTaxSettings(), ...doc?.settings }, updatedAt: doc?.updatedAt ?? null }),
};

export function getTaxSettings(deps: Pick<TaxDeps, 'store'>, key: OrgKey): Promise<TaxSettingsState> {
  return readOrgSettings(deps.store, taxSettings, key);
}

/** Merges a validated patch into the stored settings; an invalid or empty patch writes nothing. */
export function updateTaxSettings(deps: TaxDeps, key: OrgKey, patch: TaxSettingsPatch): Promise<TaxSettingsState> {
  return patchOrgSettings(deps, taxSettings, key, patch, (cur) =>
    applyTaxPatch({ ...defaultTaxSettings(), ...cur }, patch),
  );
}
