import { toWire, type TenantKey } from '@paymesh/core';
import type { billing } from '@paymesh/proto';
import { billingJson, recurringJson, rpc } from '../clients';
import type { PortalDeps } from './deps';

/** One organization in one data mode (the shared tenant key). */
export type Tenant = TenantKey;

/** The organization's portal switches (billing). */
export async function orgPortalSettings(deps: PortalDeps, t: Tenant): Promise<billing.PortalSettings> {
  const b = deps.clients.billing;
  return rpc(
    b,
    b.getPortalSettings,
    { organizationId: t.organizationId, testMode: t.mode === 'test' },
    deps.clients.deadlineMs,
    'billing',
  );
}

/** The number of the buyer's portal-visible recurring subscriptions (recurring). */
export async function subscriptionCount(deps: PortalDeps, t: Tenant, email: string): Promise<number> {
  const answer = await recurringJson(deps.clients).json('countPortalSubscriptions', toWire(t), { email });
  return Math.max(answer.count, 0);
}

/** The number of the buyer's portal-visible invoices and credit notes (billing). */
export async function documentCount(deps: PortalDeps, t: Tenant, email: string): Promise<number> {
  const answer = await billingJson(deps.clients).json('countPortalDocuments', toWire(t), {
    actor: `portal:${email}`,
    email,
  });
  return answer.count;
}

/** Whether the organization has the portal on and the address has something to see there. */
export async function mayUsePortal(deps: PortalDeps, t: Tenant, email: string): Promise<boolean> {
  if (!deps.settings.enabled) return false;
  const settings = await orgPortalSettings(deps, t);
  if (!settings.enabled) return false;
  if ((await documentCount(deps, t, email)) > 0) return true;
  return (await subscriptionCount(deps, t, email)) > 0;
}
