import type { TenantKey } from '@paymesh/core';
import { findOrgSettings, patchOrgSettings, readOrgSettings, type OrgSettingsKind } from '@paymesh/store';
import type { RiskSettingsPatch, RiskSettingsView } from '@paymesh/contracts';
import { defaultRiskSettings, validateRiskSettings, type RiskSettings } from '../domain/customer-hold';
import { RISK_SETTINGS } from '../store/collections';
import type { CheckoutDeps } from './deps';

/** One organization in one data mode (the shared tenant key). */
export type OrgKey = TenantKey;

/** Stored settings over the defaults (fields added after a save take their defaults). */
const withDefaults = (settings: RiskSettings | undefined): RiskSettings => ({ ...defaultRiskSettings(), ...settings });

/** The organization's risk settings in the mode (defaults until first saved). */
export async function riskSettingsOf(deps: CheckoutDeps, key: OrgKey): Promise<RiskSettings> {
  const doc = await findOrgSettings<RiskSettings>(deps.store, RISK_SETTINGS, key.organizationId, key.mode);
  return withDefaults(doc?.settings);
}

const riskSettings: OrgSettingsKind<RiskSettings, RiskSettingsView> = {
  collection: RISK_SETTINGS,
  name: 'risk',
  defaults: defaultRiskSettings,
  view: (doc) => ({ ...withDefaults(doc?.settings), updatedAt: doc?.updatedAt ?? null }),
};

export function getRiskSettings(deps: CheckoutDeps, key: OrgKey): Promise<RiskSettingsView> {
  return readOrgSettings(deps.store, riskSettings, key);
}

/** Merges the patch and checks the result; a refused or empty patch writes nothing. Holds already created keep their terms. */
export function updateRiskSettings(
  deps: CheckoutDeps,
  key: OrgKey,
  patch: RiskSettingsPatch,
): Promise<RiskSettingsView> {
  return patchOrgSettings(deps, riskSettings, key, patch, (cur) =>
    validateRiskSettings({
      holdPolicy: patch.holdPolicy ?? cur.holdPolicy,
      safeProviderTypes: patch.safeProviderTypes ?? cur.safeProviderTypes,
    }),
  );
}
