import { ConflictError, NotFoundError, ErrorCode } from '@paymesh/core';
import type { SiteInvoicingSettingsPatch } from '@paymesh/contracts';
import { applySitePatch, effectivePrefixes, type SitePrefixes } from '../domain/site-invoicing';
import { SITE_INVOICING } from '../store/collections';
import type { SiteInvoicingDoc } from './init-site-invoicing';
import { getInvoicingSettings } from './invoicing-settings';
import type { BillingDeps, OrgKey } from './deps';

/** A site's prefixes and the prefixes its numbers actually use. */
export interface SiteInvoicingView extends SitePrefixes {
  siteId: string;
  effective: { invoicePrefix: string; creditNotePrefix: string };
}

function owned(doc: SiteInvoicingDoc | null, key: OrgKey): SiteInvoicingDoc | null {
  if (!doc) return null;
  // Another tenant's site (or the other data mode) is indistinguishable from a missing one.
  if (doc.organizationId !== key.organizationId || doc.mode !== key.mode) throw new NotFoundError('site not found');
  return doc;
}

/**
 * The site's invoicing settings. The record is created from `checkout.site.created`; until that
 * event arrives the site simply inherits everything.
 */
export async function getSiteInvoicingSettings(
  deps: BillingDeps,
  key: OrgKey,
  siteId: string,
): Promise<SiteInvoicingView> {
  const doc = owned(await deps.store.collection<SiteInvoicingDoc>(SITE_INVOICING).get(siteId), key);
  const prefixes: SitePrefixes = {
    invoicePrefix: doc?.invoicePrefix ?? null,
    creditNotePrefix: doc?.creditNotePrefix ?? null,
  };
  const org = await getInvoicingSettings(deps, key);
  return { siteId, ...prefixes, effective: effectivePrefixes(prefixes, org.settings) };
}

export async function updateSiteInvoicingSettings(
  deps: BillingDeps,
  key: OrgKey,
  siteId: string,
  patch: SiteInvoicingSettingsPatch,
): Promise<SiteInvoicingView> {
  const org = (await getInvoicingSettings(deps, key)).settings;
  const coll = deps.store.collection<SiteInvoicingDoc>(SITE_INVOICING);
  const now = deps.clock.now().toISOString();
  let stored: SiteInvoicingDoc | undefined;
  for (let attempt = 0; attempt < 3 && !stored; attempt += 1) {
    const existing = owned(await coll.get(siteId), key);
    if (existing) {
      stored = await coll.update(siteId, (cur) => {
        owned(cur, key);
        return { ...cur, ...applySitePatch(cur, patch, org), updatedAt: now };
      });
      break;
    }
    try {
      // The site.created event has not been handled yet; the gateway checked the site with checkout.
      const prefixes = applySitePatch({ invoicePrefix: null, creditNotePrefix: null }, patch, org);
      stored = await coll.insert({
        id: siteId,
        organizationId: key.organizationId,
        mode: key.mode,
        ...prefixes,
        createdAt: now,
        updatedAt: now,
      });
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)) throw err;
    }
  }
  if (!stored) throw new ConflictError('site settings changed concurrently; retry the request');
  deps.logger.info({ siteId, organizationId: key.organizationId }, 'site invoicing settings updated');
  const prefixes: SitePrefixes = { invoicePrefix: stored.invoicePrefix, creditNotePrefix: stored.creditNotePrefix };
  return { siteId, ...prefixes, effective: effectivePrefixes(prefixes, org) };
}
