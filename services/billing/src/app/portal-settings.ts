import type { PortalSettingsPatch } from '@paymesh/contracts';
import {
  applyPortalPatch,
  defaultStoredPortalSettings,
  portalSettingsView,
  type PortalSettings,
  type StoredPortalSettings,
} from '../domain/portal-settings';
import { PORTAL_SETTINGS } from '../store/collections';
import { patchOrgSettings, readOrgSettings, type OrgSettingsKind } from '@paymesh/store';
import type { BillingDeps, OrgKey } from './deps';

const portalSettings: OrgSettingsKind<StoredPortalSettings, PortalSettings> = {
  collection: PORTAL_SETTINGS,
  name: 'portal',
  defaults: defaultStoredPortalSettings,
  view: (doc) => portalSettingsView(doc?.settings),
  logged: portalSettingsView,
};

export function getPortalSettings(deps: BillingDeps, key: OrgKey): Promise<PortalSettings> {
  return readOrgSettings(deps.store, portalSettings, key);
}

/** Merges a patch into the stored settings; an empty patch changes nothing and writes nothing. */
export function updatePortalSettings(
  deps: BillingDeps,
  key: OrgKey,
  patch: PortalSettingsPatch,
): Promise<PortalSettings> {
  return patchOrgSettings(deps, portalSettings, key, patch, (cur) => applyPortalPatch(cur, patch));
}
