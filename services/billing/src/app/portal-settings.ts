import type { PortalSettingsPatch } from '@paymesh/contracts';
import {
  applyPortalPatch,
  defaultStoredPortalSettings,
  portalSettingsView,
  type PortalSettings,
  type StoredPortalSettings,
} from '../domain/portal-settings';
import { PORTAL_SETTINGS } from '../store/collections';
import { findOrgSettings, updateOrgSettings } from '@paymesh/store';
import type { BillingDeps, OrgKey } from './deps';

export async function getPortalSettings(deps: BillingDeps, key: OrgKey): Promise<PortalSettings> {
  const doc = await findOrgSettings<StoredPortalSettings>(deps.store, PORTAL_SETTINGS, key.organizationId, key.mode);
  return portalSettingsView(doc?.settings);
}

export async function updatePortalSettings(
  deps: BillingDeps,
  key: OrgKey,
  patch: PortalSettingsPatch,
): Promise<PortalSettings> {
  // An empty patch changes nothing and writes nothing.
  if (Object.keys(patch).length === 0) return getPortalSettings(deps, key);
  const doc = await updateOrgSettings<StoredPortalSettings>(
    deps.store,
    PORTAL_SETTINGS,
    key,
    deps.clock.now().toISOString(),
    defaultStoredPortalSettings,
    (cur) => applyPortalPatch(cur, patch),
  );
  const view = portalSettingsView(doc.settings);
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, settings: view }, 'portal settings updated');
  return view;
}
