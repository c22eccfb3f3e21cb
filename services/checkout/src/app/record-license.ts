import { ConflictError, ErrorCode } from '@paymesh/core';
import type { LicenseState, OrgLicenseDoc } from '../domain/license';
import { ORG_LICENSES } from '../store/collections';
import type { PaymentsDeps } from './payments-deps';

/**
 * Records an organization's licence state from an identity event. Events may arrive late or out of
 * order, so a state is only replaced by one that happened at the same time or later.
 */
export async function recordLicenseState(
  deps: PaymentsDeps,
  input: { organizationId: string; licenseState: LicenseState; at: string },
): Promise<'recorded' | 'stale'> {
  const licenses = deps.store.collection<OrgLicenseDoc>(ORG_LICENSES);
  const now = deps.clock.now().toISOString();
  for (let attempt = 1; attempt <= 3; attempt++) {
    const current = await licenses.get(input.organizationId);
    if (!current) {
      try {
        await licenses.insert({
          id: input.organizationId,
          licenseState: input.licenseState,
          stateAt: input.at,
          updatedAt: now,
        });
        deps.logger.info(
          { organizationId: input.organizationId, licenseState: input.licenseState },
          'licence state recorded',
        );
        return 'recorded';
      } catch (err) {
        if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) continue;
        throw err;
      }
    }
    let stale = false;
    await licenses.update(current.id, (cur) => {
      stale = cur.stateAt > input.at;
      return stale ? null : { ...cur, licenseState: input.licenseState, stateAt: input.at, updatedAt: now };
    });
    deps.logger.info(
      { organizationId: input.organizationId, licenseState: input.licenseState, stale },
      'licence state event handled',
    );
    return stale ? 'stale' : 'recorded';
  }
  throw new ConflictError('licence state kept changing; retry', { code: ErrorCode.VERSION_CONFLICT });
}
