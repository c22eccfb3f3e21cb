import { checkout } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { modeOf, pageOf, requireObjectId } from '@paymesh/core';
import type { SiteDoc } from '../domain/site';
import type { CustomDomainDoc } from '../domain/custom-domain';
import { DEFAULT_VAT_ID_VALIDATION, sitePresentationOf } from '../domain/settings';
import type { CheckoutDeps } from '../app/deps';
import { createSite } from '../app/create-site';
import { getSite, listSites } from '../app/get-site';
import { getSiteSigningSecret } from '../app/site-signing-secret';
import { updateSite } from '../app/update-site';
import { deleteSite } from '../app/delete-site';
import { rotateSiteSecret } from '../app/rotate-site-secret';
import { createDomain, deleteDomain, getDomain, listDomains } from '../app/domains';
import { verifyDomainCname } from '../app/verify-domain';
import { lookupDnsTxt } from '../app/lookup-txt';

function toSite(doc: SiteDoc, secret?: string): checkout.Site {
  const p = sitePresentationOf(doc);
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    name: doc.name,
    url: doc.url,
    frontendDomains: doc.frontendDomains,
    testMode: doc.mode === 'test',
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    webhookSigningSecretHint: doc.webhookSecretHint,
    branding: { ...(p.logo ? { logo: p.logo } : {}), ...(p.primaryColor ? { primaryColor: p.primaryColor } : {}) },
    checkoutSettings: { vatIdValidation: p.vatIdValidation ?? DEFAULT_VAT_ID_VALIDATION },
    ...(secret ? { webhookSigningSecret: secret } : {}),
  };
}

function toDomain(doc: CustomDomainDoc, cnameTarget: string): checkout.CustomDomain {
  return {
    id: doc.id,
    organizationId: doc.organizationId,
    hostname: doc.hostname,
    ...(doc.siteId ? { siteId: doc.siteId } : {}),
    verified: doc.verified,
    ...(doc.verifiedAt ? { verifiedAt: doc.verifiedAt } : {}),
    ...(doc.lastCheckedAt ? { lastCheckedAt: doc.lastCheckedAt } : {}),
    cnameTarget,
    testMode: doc.mode === 'test',
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const requireOrg = (id: string): string => requireObjectId(id, 'organizationId');

export function registerCheckoutService(grpc: GrpcServer, deps: CheckoutDeps): void {
  const { logger } = deps;
  const target = deps.customDomains.cnameTarget.toLowerCase().replace(/\.$/, '');
  const impl: checkout.CheckoutServiceServer = {
    createSite: unary(logger, 'checkout/CreateSite', async (req: checkout.CreateSiteRequest) => {
      const { site, secret } = await createSite(deps, {
        organizationId: requireOrg(req.organizationId),
        mode: modeOf(req.testMode),
        name: req.name,
        url: req.url,
        frontendDomains: req.frontendDomains,
        branding: req.branding,
        vatIdValidation: req.vatIdValidation,
      });
      return toSite(site, secret);
    }),
    getSite: unary(logger, 'checkout/GetSite', async (req: checkout.GetSiteRequest) => {
      const site = await getSite(deps, requireOrg(req.organizationId), modeOf(req.testMode), req.id);
      return toSite(site);
    }),
    listSites: unary(logger, 'checkout/ListSites', async (req: checkout.ListSitesRequest) => {
      const { page, limit } = pageOf(req, 'records');
      const res = await listSites(deps, requireOrg(req.organizationId), modeOf(req.testMode), page, limit);
      return { items: res.items.map((s) => toSite(s)), total: res.total, page: res.page, limit: res.limit };
    }),
    updateSite: unary(logger, 'checkout/UpdateSite', async (req: checkout.UpdateSiteRequest) => {
      const site = await updateSite(deps, {
        organizationId: requireOrg(req.organizationId),
        mode: modeOf(req.testMode),
        id: requireObjectId(req.id, 'id'),
        name: req.name,
        url: req.url,
        frontendDomains: req.frontendDomains?.values,
        branding: req.branding,
        vatIdValidation: req.vatIdValidation,
      });
      return toSite(site);
    }),
    deleteSite: unary(logger, 'checkout/DeleteSite', async (req: checkout.DeleteSiteRequest) => {
      await deleteSite(deps, requireOrg(req.organizationId), modeOf(req.testMode), requireObjectId(req.id, 'id'));
      return {};
    }),
    rotateSiteWebhookSecret: unary(
      logger,
      'checkout/RotateSiteWebhookSecret',
      async (req: checkout.RotateSiteWebhookSecretRequest) => {
        const { site, secret } = await rotateSiteSecret(
          deps,
          requireOrg(req.organizationId),
          modeOf(req.testMode),
          requireObjectId(req.id, 'id'),
        );
        return toSite(site, secret);
      },
    ),
    getSiteSigningSecret: unary(
      logger,
      'checkout/GetSiteSigningSecret',
      async (req: checkout.GetSiteSigningSecretRequest) => ({
        secret: await getSiteSigningSecret(deps, requireOrg(req.organizationId), req.siteId),
      }),
    ),
    listDomains: unary(logger, 'checkout/ListDomains', async (req: checkout.ListDomainsRequest) => {
      const res = await listDomains(deps, requireOrg(req.organizationId), modeOf(req.testMode), {
        ...pageOf(req, 'records'),
        siteId: req.siteId ? requireObjectId(req.siteId, 'siteId') : undefined,
      });
      return { items: res.items.map((d) => toDomain(d, target)), total: res.total, page: res.page, limit: res.limit };
    }),
    createDomain: unary(logger, 'checkout/CreateDomain', async (req: checkout.CreateDomainRequest) => {
      const doc = await createDomain(deps, {
        organizationId: requireOrg(req.organizationId),
        mode: modeOf(req.testMode),
        hostname: req.hostname,
        siteId: req.siteId ? requireObjectId(req.siteId, 'siteId') : null,
      });
      return toDomain(doc, target);
    }),
    getDomain: unary(logger, 'checkout/GetDomain', async (req: checkout.GetDomainRequest) =>
      toDomain(
        await getDomain(deps, requireOrg(req.organizationId), modeOf(req.testMode), requireObjectId(req.id, 'id')),
        target,
      ),
    ),
    deleteDomain: unary(logger, 'checkout/DeleteDomain', async (req: checkout.DeleteDomainRequest) => {
      await deleteDomain(deps, requireOrg(req.organizationId), modeOf(req.testMode), requireObjectId(req.id, 'id'));
      return {};
    }),
    verifyDomainCname: unary(logger, 'checkout/VerifyDomainCname', async (req: checkout.VerifyDomainCnameRequest) => {
      const check = await verifyDomainCname(deps, requireOrg(req.organizationId), modeOf(req.testMode), req.hostname);
      return {
        domain: toDomain(check.domain, target),
        verified: check.verified,
        expectedCname: check.expectedCname,
        foundCnames: check.foundCnames,
        reason: check.reason,
        checkedAt: check.checkedAt,
      };
    }),
    lookupDnsTxt: unary(logger, 'checkout/LookupDnsTxt', async (req: checkout.LookupDnsTxtRequest) => {
      const { values, reason } = await lookupDnsTxt(deps, req.hostname);
      return { values, reason };
    }),
  };
  grpc.addService(checkout.CheckoutServiceService, impl);
}
