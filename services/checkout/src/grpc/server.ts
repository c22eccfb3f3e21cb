import { checkout } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { isObjectId, ValidationError } from '@paymesh/core';
import type { SiteDoc } from '../domain/site';
import type { CheckoutDeps } from '../app/deps';
import { createSite } from '../app/create-site';
import { getSite, listSites } from '../app/get-site';
import { getSiteSigningSecret } from '../app/site-signing-secret';

function toSite(doc: SiteDoc, secret?: string): checkout.Site {
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
    ...(secret ? { webhookSigningSecret: secret } : {}),
  };
}

function requireOrg(id: string): string {
  if (!isObjectId(id)) throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return id;
}

export function registerCheckoutService(grpc: GrpcServer, deps: CheckoutDeps): void {
  const { logger } = deps;
  const impl: checkout.CheckoutServiceServer = {
    createSite: unary(logger, 'checkout/CreateSite', async (req: checkout.CreateSiteRequest) => {
      const { site, secret } = await createSite(deps, {
        organizationId: requireOrg(req.organizationId),
        mode: req.testMode ? 'test' : 'live',
        name: req.name,
        url: req.url,
        frontendDomains: req.frontendDomains,
      });
      return toSite(site, secret);
    }),
    getSite: unary(logger, 'checkout/GetSite', async (req: checkout.GetSiteRequest) => {
      const site = await getSite(deps, requireOrg(req.organizationId), req.testMode ? 'test' : 'live', req.id);
      return toSite(site);
    }),
    listSites: unary(logger, 'checkout/ListSites', async (req: checkout.ListSitesRequest) => {
      const page = Math.max(1, req.page || 1);
      const limit = Math.min(100, Math.max(1, req.limit || 20));
      const res = await listSites(deps, requireOrg(req.organizationId), req.testMode ? 'test' : 'live', page, limit);
      return { items: res.items.map((s) => toSite(s)), total: res.total, page: res.page, limit: res.limit };
    }),
    getSiteSigningSecret: unary(logger, 'checkout/GetSiteSigningSecret', async (req: checkout.GetSiteSigningSecretRequest) => ({
      secret: await getSiteSigningSecret(deps, requireOrg(req.organizationId), req.siteId),
    })),
  };
  grpc.addService(checkout.CheckoutServiceService, impl);
}
