import { portalSettingsPatch } from '@paymesh/contracts';
import { applyPortalPatch, defaultPortalSettings, type PortalSettings } from '../domain/portal-settings';
import { PORTAL_SETTINGS } from '../store/collections';
import { findOrgSettings, updateOrgSettings } from '@paymesh/store';
import { decodePatch } from '@paymesh/core';
import type { BillingDeps, OrgKey } from './deps';

export async function getPortalSettings(deps: BillingDeps, key: OrgKey): Promise<PortalSettings> {
  const doc = await findOrgSettings<PortalSettings>(deps.store, PORTAL_SETTINGS, key.organizationId, key.mode);
  // Settings saved before a field existed take its default.
  return { ...defaultPortalSettings(), ...(doc?.settings ?? {}) };
}

export async function updatePortalSettings(deps: BillingDeps, key: OrgKey, patchJson: string): Promise<PortalSettings> {
  const patch = decodePatch(portalSettingsPatch, patchJson);
  // An empty patch changes nothing and writes nothing.
  if (Object.keys(patch).length === 0) return getPortalSettings(deps, key);
  const doc = await updateOrgSettings<PortalSettings>(deps.store, PORTAL_SETTINGS, key, deps.clock.now().toISOString(), defaultPortalSettings, (cur) =>
    applyPortalPatch(cur, patch),
  );
  deps.logger.info({ organizationId: key.organizationId, mode: key.mode, settings: doc.settings }, 'portal settings updated');
  return { ...defaultPortalSettings(), ...doc.settings };
}
