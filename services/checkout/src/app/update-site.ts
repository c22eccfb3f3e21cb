import { NotFoundError } from '@paymesh/core';
import { validateFrontendDomains, validateSiteName, validateSiteUrl, type Mode, type SiteDoc } from '../domain/site';
import {
  applyBrandingPatch,
  validateVatIdValidation,
  type SiteBrandingPatch,
  type VatIdValidation,
} from '../domain/settings';
import { SITES } from '../store/collections';
import { ownsSite } from './get-site';
import type { CheckoutDeps } from './deps';

export interface UpdateSiteInput {
  organizationId: string;
  mode: Mode;
  id: string;
  name?: string | undefined;
  url?: string | undefined;
  frontendDomains?: string[] | undefined;
  /** Fields present change; an empty value clears the field. */
  branding?: SiteBrandingPatch | undefined;
  vatIdValidation?: string | undefined;
}

/** Changes the given fields of a site (partial update); the others keep their value. */
export async function updateSite(deps: CheckoutDeps, input: UpdateSiteInput): Promise<SiteDoc> {
  const changes: Partial<Pick<SiteDoc, 'name' | 'url' | 'frontendDomains'>> = {};
  if (input.name !== undefined) changes.name = validateSiteName(input.name);
  if (input.url !== undefined) changes.url = validateSiteUrl(input.url);
  if (input.frontendDomains !== undefined) changes.frontendDomains = validateFrontendDomains(input.frontendDomains);
  const vatIdValidation: VatIdValidation | undefined =
    input.vatIdValidation !== undefined ? validateVatIdValidation(input.vatIdValidation) : undefined;
  // Validates before anything is read, so bad input writes nothing.
  if (input.branding) applyBrandingPatch(undefined, input.branding);
  const sites = deps.store.collection<SiteDoc>(SITES);
  if (!ownsSite(await sites.get(input.id), input.organizationId, input.mode)) throw new NotFoundError('site not found');
  const now = deps.clock.now().toISOString();
  const site = await sites.update(input.id, (cur) => {
    if (!ownsSite(cur, input.organizationId, input.mode)) throw new NotFoundError('site not found');
    return {
      ...cur,
      ...changes,
      ...(input.branding ? { branding: applyBrandingPatch(cur.branding, input.branding) } : {}),
      ...(vatIdValidation ? { checkoutSettings: { ...cur.checkoutSettings, vatIdValidation } } : {}),
      updatedAt: now,
    };
  });
  const fields = [
    ...Object.keys(changes),
    ...(input.branding ? ['branding'] : []),
    ...(vatIdValidation ? ['checkoutSettings'] : []),
  ];
  deps.logger.info({ siteId: site.id, fields }, 'site updated');
  return site;
}
