import { ConflictError, type Logger, ofTenant } from '@paymesh/core';
import type { DocumentStore, StoredDoc } from '@paymesh/store';
import { SITE_INVOICING } from '../store/collections';
import type { OrgKey } from './deps';

/** Site-level invoicing settings: sites inherit the organization's layouts and may override prefixes. */
export interface SiteInvoicingDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  invoicePrefix: string | null;
  creditNotePrefix: string | null;
  createdAt: string;
  updatedAt?: string;
}

/**
 * Creates the (inheriting) invoicing settings of a new site. Keyed by the site ID, so a
 * redelivered event finds the record already there and changes nothing.
 */
export async function initSiteInvoicing(
  store: DocumentStore,
  logger: Logger,
  input: { organizationId: string; siteId: string; mode: 'live' | 'test'; at: string },
): Promise<'created' | 'exists'> {
  try {
    await store.collection<SiteInvoicingDoc>(SITE_INVOICING).insert({
      id: input.siteId,
      organizationId: input.organizationId,
      mode: input.mode,
      invoicePrefix: null,
      creditNotePrefix: null,
      createdAt: input.at,
    });
    logger.info({ siteId: input.siteId, organizationId: input.organizationId }, 'site invoicing settings initialised');
    return 'created';
  } catch (err) {
    if (err instanceof ConflictError) {
      logger.info({ siteId: input.siteId }, 'site invoicing settings already present');
      return 'exists';
    }
    throw err;
  }
}

/** The site's prefix overrides (none until the site's settings exist). */
export async function sitePrefixes(deps: { store: DocumentStore }, key: OrgKey, siteId: string) {
  const site = await deps.store.collection<SiteInvoicingDoc>(SITE_INVOICING).get(siteId);
  const own = ofTenant(site, key);
  return { invoicePrefix: own ? site.invoicePrefix : null, creditNotePrefix: own ? site.creditNotePrefix : null };
}
