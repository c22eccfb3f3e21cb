import { ForbiddenError, ErrorCode } from '@paymesh/core';
import type { OrganizationCreated } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';

export type LicenseState = OrganizationCreated['licenseState'];

/** Replica of an organization's licence state, kept from identity events (id = organization ID). */
export interface OrgLicenseDoc extends StoredDoc {
  licenseState: LicenseState;
  /** `occurredAt` of the event that set it; older events never overwrite newer ones. */
  stateAt: string;
  updatedAt: string;
}

/**
 * The refusal for buyer-facing checkout get and transaction create, or undefined when allowed.
 * An organization missing from the replica is allowed: identity events may lag behind the first
 * checkout, and organizations are created ACTIVE unless configured otherwise.
 */
export function licenseDenial(state: LicenseState | undefined): ForbiddenError | undefined {
  if (state === 'BLOCKED')
    return new ForbiddenError('the merchant account is blocked', { code: ErrorCode.LICENSE_BLOCKED });
  if (state === 'NOT_ACTIVATED')
    return new ForbiddenError('the merchant account is not activated', { code: ErrorCode.LICENSE_NOT_ACTIVATED });
  return undefined;
}
