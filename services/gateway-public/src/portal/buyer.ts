import type { TenantKey } from '@paymesh/core';
import type { billing } from '@paymesh/proto';
import { rpc } from '../clients';
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
  const r = deps.clients.recurring;
  const res = await rpc(
    r,
    r.countPortalSubscriptions,
    { organizationId: t.organizationId, testMode: t.mode === 'test', email, id: '', bodyJson: '' },
    deps.clients.deadlineMs,
    'recurring',
  );
  const n = (JSON.parse(res.json) as { count?: unknown }).count;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

/** The number of the buyer's portal-visible invoices and credit notes (billing). */
export async function documentCount(deps: PortalDeps, t: Tenant, email: string): Promise<number> {
  const b = deps.clients.billing;
  const res = await rpc(
    b,
    b.countPortalDocuments,
    {
      organizationId: t.organizationId,
      testMode: t.mode === 'test',
      id: '',
      bodyJson: JSON.stringify({ email }),
      actor: `portal:${email}`,
      idempotencyKey: '',
    },
    deps.clients.deadlineMs,
    'billing',
  );
  return (JSON.parse(res.json) as { count: number }).count;
}

/** Whether the organization has the portal on and the address has something to see there. */
export async function mayUsePortal(deps: PortalDeps, t: Tenant, email: string): Promise<boolean> {
  if (!deps.settings.enabled) return false;
  const settings = await orgPortalSettings(deps, t);
  if (!settings.enabled) return false;
  if ((await documentCount(deps, t, email)) > 0) return true;
  return (await subscriptionCount(deps, t, email)) > 0;
}
