import { z } from 'zod';
import type { billing, checkout } from '@paymesh/proto';
import { siteInvoicingSettingsPatch } from '@paymesh/contracts';
import type { AdminDeps } from '../../app/deps';
import { site, siteInvoicingSettings, sitePage } from '../responses/sites';
import { resource, type OrgScope } from '../route-table';
import { httpUrl, text } from '@paymesh/http';
import { idParams, orgRpc, pageQuery, recordById, recordPage, removeById } from './common';

const logo = httpUrl().describe('https URL of the logo the hosted checkout shows');
const primaryColor = text(7, 1).describe('#rrggbb');
const siteName = text(200, 1);
const frontendDomains = z.array(text(253, 1)).max(50);
const checkoutSettings = z
  .object({
    vatIdValidation: z
      .enum(['none', 'format', 'vies'])
      .describe('VAT ID check of the hosted checkout; vies is shown as format unless the tax settings allow VIES'),
  })
  .strict();

const siteBody = z
  .object({
    name: siteName,
    url: httpUrl(),
    frontendDomains: frontendDomains.default([]),
    branding: z.object({ logo, primaryColor }).strict().partial().optional(),
    checkoutSettings: checkoutSettings.optional(),
  })
  .strict();

/** Partial update: the fields present change, the others keep their value; null clears a branding field. */
const siteUpdateBody = z
  .object({
    name: siteName,
    url: httpUrl(),
    frontendDomains,
    branding: z.object({ logo: logo.nullable(), primaryColor: primaryColor.nullable() }).strict().partial(),
    checkoutSettings,
  })
  .strict()
  .partial()
  .refine(
    (b) => Object.keys(b).length > 0,
    'body must contain at least one of name, url, frontendDomains, branding, checkoutSettings',
  );

/** Branding change for checkout: absent = unchanged, null = cleared (empty string on the wire). */
function brandingPatch(
  b: { logo?: string | null | undefined; primaryColor?: string | null | undefined } | undefined,
): checkout.SiteBrandingPatch | undefined {
  if (!b) return undefined;
  return {
    ...(b.logo !== undefined ? { logo: b.logo ?? '' } : {}),
    ...(b.primaryColor !== undefined ? { primaryColor: b.primaryColor ?? '' } : {}),
  };
}

/** Public shape of a site; the signing secret appears only on creation and rotation. */
export function siteView(s: checkout.Site) {
  return {
    id: s.id,
    organizationId: s.organizationId,
    name: s.name,
    url: s.url,
    frontendDomains: s.frontendDomains,
    testMode: s.testMode,
    branding: { logo: s.branding?.logo ?? null, primaryColor: s.branding?.primaryColor ?? null },
    checkoutSettings: { vatIdValidation: s.checkoutSettings?.vatIdValidation || 'format' },
    webhookSigningSecretHint: s.webhookSigningSecretHint,
    ...(s.webhookSigningSecret ? { webhookSigningSecret: s.webhookSigningSecret } : {}),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** Sites: Viewers read, Editors create and change, Admins delete (scope `site:<action>` from the method). */
const sites = resource({ tag: 'Sites', scopePrefix: 'site' });

export const siteRoutes = [
  sites({
    method: 'GET',
    path: '/sites',
    operationId: 'listSites',
    response: sitePage,
    summary: 'List sites',
    query: pageQuery(20),
    handler: recordPage('checkout', (c) => c.listSites, siteView),
  }),
  sites({
    method: 'GET',
    path: '/sites/:id',
    operationId: 'getSite',
    response: site,
    summary: 'Get a site',
    params: idParams,
    handler: recordById('checkout', (c) => c.getSite, siteView),
  }),
  sites({
    method: 'POST',
    path: '/sites',
    operationId: 'createSite',
    response: site,
    summary: 'Create a site (returns its whsec_ IPN signing secret once)',
    body: siteBody,
    status: 201,
    async handler({ deps, org, body }) {
      const s = await orgRpc(deps, org, 'checkout', (c) => c.createSite, {
        name: body.name,
        url: body.url,
        frontendDomains: body.frontendDomains,
        branding: brandingPatch(body.branding),
        vatIdValidation: body.checkoutSettings?.vatIdValidation,
      });
      return siteView(s);
    },
  }),
  sites({
    method: 'PUT',
    path: '/sites/:id',
    operationId: 'updateSite',
    response: site,
    summary: 'Update a site (partial: name, url, frontendDomains, branding, checkoutSettings)',
    params: idParams,
    body: siteUpdateBody,
    async handler({ deps, org, params, body }) {
      const s = await orgRpc(deps, org, 'checkout', (c) => c.updateSite, {
        id: params.id,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.url !== undefined ? { url: body.url } : {}),
        frontendDomains: body.frontendDomains ? { values: body.frontendDomains } : undefined,
        branding: brandingPatch(body.branding),
        vatIdValidation: body.checkoutSettings?.vatIdValidation,
      });
      return siteView(s);
    },
  }),
  sites({
    method: 'DELETE',
    path: '/sites/:id',
    operationId: 'deleteSite',
    response: null,
    summary: 'Delete a site (soft delete: 404 afterwards; past transactions keep it)',
    params: idParams,
    status: 204,
    handler: removeById('checkout', (c) => c.deleteSite),
  }),
  sites({
    method: 'POST',
    path: '/sites/:id/webhook-secret/regenerate',
    operationId: 'rotateSiteWebhookSecret',
    response: site,
    action: 'update',
    summary: 'Rotate the IPN signing secret (the new whsec_ secret is returned once; the old one signs nothing more)',
    params: idParams,
    handler: recordById('checkout', (c) => c.rotateSiteWebhookSecret, siteView),
  }),
  sites({
    method: 'GET',
    path: '/sites/:id/settings/invoicing',
    operationId: 'getSiteInvoicingSettings',
    response: siteInvoicingSettings,
    summary: "The site's invoice and credit note prefixes (null = inherited from the organization layouts)",
    params: idParams,
    async handler({ deps, org, params }) {
      await requireSite(deps, org, params.id);
      const res = await orgRpc(deps, org, 'billing', (c) => c.getSiteInvoicingSettings, { siteId: params.id });
      return siteInvoicingView(res);
    },
  }),
  sites({
    method: 'PUT',
    path: '/sites/:id/settings/invoicing',
    operationId: 'updateSiteInvoicingSettings',
    response: siteInvoicingSettings,
    errors: [409],
    summary: 'Override the invoice/credit note prefix of a site (partial; null inherits again)',
    params: idParams,
    body: siteInvoicingSettingsPatch,
    async handler({ deps, org, params, body }) {
      await requireSite(deps, org, params.id);
      const res = await orgRpc(deps, org, 'billing', (c) => c.updateSiteInvoicingSettings, {
        siteId: params.id,
        patchJson: JSON.stringify(body),
      });
      return siteInvoicingView(res);
    },
  }),
];

/** Checkout owns sites: a missing, deleted or foreign site is a 404 before billing is asked. */
async function requireSite(deps: AdminDeps, org: OrgScope, id: string): Promise<void> {
  await orgRpc(deps, org, 'checkout', (c) => c.getSite, { id });
}

function siteInvoicingView(s: billing.SiteInvoicingSettings) {
  return {
    siteId: s.siteId,
    invoicePrefix: s.invoicePrefix ?? null,
    creditNotePrefix: s.creditNotePrefix ?? null,
    effective: { invoicePrefix: s.effectiveInvoicePrefix, creditNotePrefix: s.effectiveCreditNotePrefix },
  };
}
