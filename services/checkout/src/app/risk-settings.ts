import type { TenantKey } from '@paymesh/core';
import { findOrgSettings, updateOrgSettings } from '@paymesh/store';
import type { RiskSettingsPatch, RiskSettingsView } from '@paymesh/contracts';
import { defaultRiskSettings, validateRiskSettings, type RiskSettings } from '../domain/customer-hold';
import { RISK_SETTINGS } from '../store/collections';
import type { CheckoutDeps } from './deps';

/** One organization in one data mode (the shared tenant key). */
export type OrgKey = TenantKey;

/** The organization's risk settings in the mode (defaults until first saved). */
export async function riskSettingsOf(deps: CheckoutDeps, key: OrgKey): Promise<RiskSettings> {
  const doc = await findOrgSettings<RiskSettings>(deps.store, RISK_SETTINGS, key.organizationId, key.mode);
  return doc ? { ...defaultRiskSettings(), ...doc.settings } : defaultRiskSettings();
}

export async function getRiskSettings(deps: CheckoutDeps, key: OrgKey): Promise<RiskSettingsView> {
  const doc = await findOrgSettings<RiskSettings>(deps.store, RISK_SETTINGS, key.organizationId, key.mode);
  const s = doc ? { ...defaultRiskSettings(), ...doc.settings } : defaultRiskSettings();
  return { ...s, updatedAt: doc?.updatedAt ?? null };
}

/** Merges the patch and checks the result; a refused or empty patch writes nothing. Holds already created keep their terms. */
export async function updateRiskSettings(
  deps: CheckoutDeps,
  key: OrgKey,
  patch: RiskSettingsPatch,
): Promise<RiskSettingsView> {
  if (Object.keys(patch).length === 0) return getRiskSettings(deps, key);
  const doc = await updateOrgSettings<RiskSettings>(
    deps.store,
    RISK_SETTINGS,
    key,
    deps.clock.now().toISOString(),
    defaultRiskSettings,
    (cur) =>
      validateRiskSettings({
        holdPolicy: patch.holdPolicy ?? cur.holdPolicy,
        safeProviderTypes: patch.safeProviderTypes ?? cur.safeProviderTypes,
      }),
  );
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, settings: doc.settings },
    'risk settings updated',
  );
  return { ...doc.settings, updatedAt: doc.updatedAt };
}
