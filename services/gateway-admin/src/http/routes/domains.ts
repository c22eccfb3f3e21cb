import { z } from 'zod';
import type { checkout } from '@paymesh/proto';
import { cnameCheck, domain, domainPage } from '../responses/domains';
import { text } from '@paymesh/http';
import { resource } from '../route-table';
import { idParams, objectId, orgRpc, pageOf, pageQuery, recordById, removeById } from './common';

/** Public shape of a custom domain. */
export function domainView(d: checkout.CustomDomain) {
  return {
    id: d.id,
    hostname: d.hostname,
    siteId: d.siteId ?? null,
    verified: d.verified,
    verifiedAt: d.verifiedAt ?? null,
    lastCheckedAt: d.lastCheckedAt ?? null,
    cnameTarget: d.cnameTarget,
    testMode: d.testMode,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

const createBody = z
  .object({
    hostname: text(253, 1),
    siteId: objectId('siteId').optional(),
  })
  .strict();

/** Custom checkout domains (owned by checkout): scope `domain:<action>` and role from the method; creating and deleting them needs the Admin role. */
const domains = resource({ tag: 'Domains', scopePrefix: 'domain', writeRole: 'Admin' });

export const domainRoutes = [
  domains({
    method: 'GET',
    path: '/domains',
    operationId: 'listDomains',
    response: domainPage,
    summary: 'List custom domains (optionally of one site)',
    query: pageQuery(20).extend({ siteId: objectId('siteId').optional() }),
    async handler({ deps, org, query }) {
      const res = await orgRpc(deps, org, 'checkout', (c) => c.listDomains, {
        page: query.page,
        limit: query.limit,
        ...(query.siteId ? { siteId: query.siteId } : {}),
      });
      return pageOf(res, domainView);
    },
  }),
  domains({
    method: 'GET',
    path: '/domains/verify-cname',
    action: 'execute',
    role: 'Editor',
    operationId: 'verifyDomainCname',
    response: cnameCheck,
    summary: "Look up the domain's CNAME record and mark the domain verified when it points at the checkout host",
    query: z.object({ domain: text(253, 1) }).strict(),
    async handler({ deps, org, query }) {
      const res = await orgRpc(deps, org, 'checkout', (c) => c.verifyDomainCname, { hostname: query.domain });
      if (!res.domain) throw new Error('checkout answered without the domain');
      return {
        hostname: res.domain.hostname,
        verified: res.verified,
        expectedCname: res.expectedCname,
        foundCnames: res.foundCnames,
        reason: res.reason || null,
        checkedAt: res.checkedAt,
        domain: domainView(res.domain),
      };
    },
  }),
  domains({
    method: 'GET',
    path: '/domains/:id',
    operationId: 'getDomain',
    response: domain,
    summary: 'Get a custom domain',
    params: idParams,
    handler: recordById('checkout', (c) => c.getDomain, domainView),
  }),
  domains({
    method: 'POST',
    path: '/domains',
    operationId: 'createDomain',
    response: domain,
    errors: [409],
    summary: 'Register a custom domain (409 when any organization already registered the host name)',
    body: createBody,
    status: 201,
    async handler({ deps, org, body }) {
      const d = await orgRpc(deps, org, 'checkout', (c) => c.createDomain, {
        hostname: body.hostname,
        ...(body.siteId ? { siteId: body.siteId } : {}),
      });
      return domainView(d);
    },
  }),
  domains({
    method: 'DELETE',
    path: '/domains/:id',
    operationId: 'deleteDomain',
    response: null,
    summary: 'Delete a custom domain (its host name becomes free again)',
    params: idParams,
    status: 204,
    handler: removeById('checkout', (c) => c.deleteDomain),
  }),
];
