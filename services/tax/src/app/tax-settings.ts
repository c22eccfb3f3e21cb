import type { TaxSettingsPatch } from '@paymesh/contracts';
import { applyTaxPatch, defaultTaxSettings, type TaxSettings } from '../domain/tax-settings';
import { TAX_SETTINGS } from '../store/collections';
import { findOrgSettings, updateOrgSettings } from '@paymesh/store';
import type { OrgKey, TaxDeps } from './deps';

/** Effective tax settings and when they were last saved (null: never, defaults apply). */
export interface TaxSettingsState {
  settings: TaxSettings;
  updatedAt: string | null;
}

export async function getTaxSettings(deps: Pick<TaxDeps, 'store'>, key: OrgKey): Promise<TaxSettingsState> {
  const doc = await findOrgSettings<TaxSettings>(deps.store, TAX_SETTINGS, key.organizationId, key.mode);
  // Fields added after a document was saved take their defaults.
  return doc
    ? { settings: { ...defaultTaxSettings(), ...doc.settings }, updatedAt: doc.updatedAt }
    : { settings: defaultTaxSettings(), updatedAt: null };
}

/** Merges a validated patch into the stored settings; an invalid or empty patch writes nothing. */
export async function updateTaxSettings(
  deps: TaxDeps,
  key: OrgKey,
  patch: TaxSettingsPatch,
): Promise<TaxSettingsState> {
  if (Object.keys(patch).length === 0) return getTaxSettings(deps, key);
  const doc = await updateOrgSettings<TaxSettings>(
    deps.store,
    TAX_SETTINGS,
    key,
    deps.clock.now().toISOString(),
    defaultTaxSettings,
    (cur) => applyTaxPatch({ ...defaultTaxSettings(), ...cur }, patch),
  );
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, settings: doc.settings },
    'tax settings updated',
  );
  return { settings: doc.settings, updatedAt: doc.updatedAt };
}
