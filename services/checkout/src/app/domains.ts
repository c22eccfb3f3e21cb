import { ConflictError, ErrorCode, NotFoundError, ValidationError } from '@paymesh/core';
import type { CountedPage } from '@paymesh/store';
import { normalizeHostname, type CustomDomainDoc } from '../domain/custom-domain';
import type { Mode } from '../domain/site';
import { CUSTOM_DOMAINS } from '../store/collections';
import { getSite } from './get-site';
import type { CheckoutDeps } from './deps';

export interface CreateDomainInput {
  organizationId: string;
  mode: Mode;
  hostname: string;
  siteId: string | null;
}

function visible(doc: CustomDomainDoc | null, organizationId: string, mode: Mode): doc is CustomDomainDoc {
  return !!doc && doc.organizationId === organizationId && doc.mode === mode;
}

/**
 * Registers a custom domain (unverified until its CNAME checks out). A host name can belong to
 * one organization only: a second registration anywhere is a conflict.
 */
export async function createDomain(deps: CheckoutDeps, input: CreateDomainInput): Promise<CustomDomainDoc> {
  const hostname = normalizeHostname(input.hostname);
  if (hostname === normalizeHostname(deps.customDomains.cnameTarget, 'CUSTOM_DOMAIN_CNAME_TARGET')) {
    throw new ValidationError('hostname: the checkout host itself cannot be a custom domain', { field: 'hostname' });
  }
  if (input.siteId !== null) await getSite(deps, input.organizationId, input.mode, input.siteId);
  const now = deps.clock.now().toISOString();
  try {
    const doc = await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).insert({
      organizationId: input.organizationId,
      mode: input.mode,
      hostname,
      siteId: input.siteId,
      verified: false,
      verifiedAt: null,
      lastCheckedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    deps.logger.info({ domainId: doc.id, hostname, organizationId: input.organizationId }, 'custom domain registered');
    return doc;
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) {
      // Says nothing about who holds it: the name may belong to another organization.
      throw new ConflictError(`hostname ${hostname} is already registered`, {
        code: ErrorCode.DOMAIN_ALREADY_REGISTERED,
      });
    }
    throw err;
  }
}

export async function getDomain(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  id: string,
): Promise<CustomDomainDoc> {
  const doc = await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).get(id);
  if (!visible(doc, organizationId, mode)) throw new NotFoundError('domain not found');
  return doc;
}

export function listDomains(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  opts: { page: number; limit: number; siteId: string | undefined },
): Promise<CountedPage<CustomDomainDoc>> {
  return deps.store
    .collection<CustomDomainDoc>(CUSTOM_DOMAINS)
    .find(
      { organizationId, mode, ...(opts.siteId ? { siteId: opts.siteId } : {}) },
      { sort: { createdAt: -1 }, page: opts.page, limit: opts.limit, total: true },
    );
}

/** Removes a custom domain; the host name becomes free for registration again. */
export async function deleteDomain(deps: CheckoutDeps, organizationId: string, mode: Mode, id: string): Promise<void> {
  await getDomain(deps, organizationId, mode, id);
  await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).delete(id);
  deps.logger.info({ domainId: id, organizationId }, 'custom domain deleted');
}

/** The organization's domain with this host name, or 404. */
export async function findDomainByHostname(
  deps: CheckoutDeps,
  organizationId: string,
  mode: Mode,
  hostname: string,
): Promise<CustomDomainDoc> {
  const doc = await deps.store
    .collection<CustomDomainDoc>(CUSTOM_DOMAINS)
    .findOne({ hostname: normalizeHostname(hostname, 'domain') });
  if (!visible(doc, organizationId, mode)) throw new NotFoundError('domain not found');
  return doc;
}
