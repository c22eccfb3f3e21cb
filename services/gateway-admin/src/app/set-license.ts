import { NotFoundError } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import { Subjects, type OrganizationLicenseChanged } from '@paymesh/contracts';
import { ORGANIZATIONS, type LicenseState, type OrganizationDoc } from '../store/collections';
import type { AdminDeps } from './deps';

/**
 * Sets an organization's licence state and, when it changes, announces
 * `identity.organization.license_changed` in the same transaction (checkout keeps a replica to
 * enforce the licence on public checkout). Setting the current state again changes nothing.
 */
export async function setLicenseState(
  deps: AdminDeps,
  organizationId: string,
  state: LicenseState,
): Promise<OrganizationDoc> {
  const now = deps.clock.now().toISOString();
  const result = await deps.outbox.commit(async (tx) => {
    const orgs = tx.collection<OrganizationDoc>(ORGANIZATIONS);
    const org = await orgs.get(organizationId);
    if (!org) throw new NotFoundError('organization not found');
    if (org.licenseState === state) return { org, changed: false };
    const next = await orgs.replace({ ...org, licenseState: state, updatedAt: now });
    const data: OrganizationLicenseChanged = {
      organizationId,
      licenseState: state,
      previousLicenseState: org.licenseState,
    };
    tx.emit(Subjects.organizationLicenseChanged, data, {
      id: eventId(Subjects.organizationLicenseChanged, organizationId, String(next.version)),
      occurredAt: now,
    });
    return { org: next, changed: true };
  });
  if (result.changed) deps.logger.info({ organizationId, licenseState: state }, 'organization licence changed');
  return result.org;
}
