import { NotFoundError } from '@paymesh/core';
import { cnamePointsAt, type CustomDomainDoc } from '../domain/custom-domain';
import type { Mode } from '../domain/site';
import { CUSTOM_DOMAINS } from '../store/collections';
import { findDomainByHostname } from './domains';
import type { CheckoutDeps } from './deps';

export interface CnameCheck {
  domain: CustomDomainDoc;
  verified: boolean;
  expectedCname: string;
  foundCnames: string[];
  /** Why the check failed; '' when verified. */
  reason: string;
  checkedAt: string;
}

/**
 * Looks up the domain's CNAME record through the configured resolvers and records the outcome:
 * verified when it points at the checkout host, unverified otherwise (a domain whose record was
 * removed or repointed loses its verification). A lookup without a definitive DNS answer changes
 * nothing and fails with 503.
 */
export async function verifyDomainCname(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  hostname: string,
): Promise<CnameCheck> {
  const domain = await findDomainByHostname(deps, organizationId, mode, hostname);
  const expected = deps.customDomains.cnameTarget.toLowerCase().replace(/\.$/, '');
  const lookup = await deps.customDomains.resolver.resolveCname(domain.hostname);
  const found = lookup.kind === 'found' ? lookup.names.map((n) => n.toLowerCase().replace(/\.$/, '')) : [];
  const verified = cnamePointsAt(found, expected);
  const reason = verified
    ? ''
    : lookup.kind === 'none'
      ? `${lookup.reason}; add a CNAME record ${domain.hostname} -> ${expected}`
      : `CNAME points at ${found.join(', ')}, expected ${expected}`;
  const now = deps.clock.now().toISOString();
  const stored = await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).update(domain.id, (cur) => {
    if (cur.organizationId !== organizationId || cur.mode !== mode) throw new NotFoundError('domain not found');
    return {
      ...cur,
      verified,
      verifiedAt: verified ? (cur.verified && cur.verifiedAt ? cur.verifiedAt : now) : null,
      lastCheckedAt: now,
      updatedAt: now,
    };
  });
  deps.logger.info({ domainId: domain.id, hostname: domain.hostname, verified, found }, 'custom domain CNAME checked');
  return { domain: stored, verified, expectedCname: expected, foundCnames: found, reason, checkedAt: now };
}
