import { newObjectId } from '@paymesh/core';
import { eventId } from '@paymesh/bus';
import {
  newWebhookSigningSecret,
  validateFrontendDomains,
  validateSiteName,
  validateSiteUrl,
  type Mode,
  type SiteDoc,
} from '../domain/site';
import {
  applyBrandingPatch,
  DEFAULT_VAT_ID_VALIDATION,
  validateVatIdValidation,
  type SiteBrandingPatch,
} from '../domain/settings';
import { CheckoutEvents, type SiteCreatedData } from '../events/subjects';
import { SITES } from '../store/collections';
import { secretHint } from '@paymesh/core';
import type { CheckoutDeps } from './deps';

export interface CreateSiteInput {
  organizationId: string;
  mode: Mode;
  name: string;
  url: string;
  frontendDomains: string[];
  branding?: SiteBrandingPatch | undefined;
  /** Configured VAT ID validation mode; default `format`. */
  vatIdValidation?: string | undefined;
}

/** Creates a site with a fresh IPN signing secret; the plaintext secret is returned once. */
export async function createSite(
  deps: CheckoutDeps,
  input: CreateSiteInput,
): Promise<{ site: SiteDoc; secret: string }> {
  const secret = newWebhookSigningSecret();
  const now = deps.clock.now().toISOString();
  const id = newObjectId();
  const doc: Omit<SiteDoc, 'version'> = {
    id,
    organizationId: input.organizationId,
    mode: input.mode,
    name: validateSiteName(input.name),
    url: validateSiteUrl(input.url),
    frontendDomains: validateFrontendDomains(input.frontendDomains),
    branding: applyBrandingPatch(undefined, input.branding ?? {}),
    checkoutSettings: {
      vatIdValidation:
        input.vatIdValidation !== undefined
          ? validateVatIdValidation(input.vatIdValidation)
          : DEFAULT_VAT_ID_VALIDATION,
    },
    webhookSecret: deps.secrets.seal(secret, id),
    webhookSecretHint: secretHint(secret),
    createdAt: now,
    updatedAt: now,
  };
  const data: SiteCreatedData = { organizationId: doc.organizationId, siteId: id, mode: doc.mode, name: doc.name };
  const site = await deps.outbox.commit(async (tx) => {
    const stored = await tx.collection<SiteDoc>(SITES).insert(doc);
    tx.emit(CheckoutEvents.siteCreated, data, { id: eventId(CheckoutEvents.siteCreated, id) });
    return stored;
  });
  deps.logger.info({ siteId: id, organizationId: input.organizationId }, 'site created');
  return { site, secret };
}
