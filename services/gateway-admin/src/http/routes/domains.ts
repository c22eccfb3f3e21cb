import { z } from 'zod';
import type { checkout } from '@paymesh/proto';
import { cnameCheck, domain, domainPage } from '../responses/domains';
import { text } from '@paymesh/http';
import { route } from '../route-table';
import { idParams, objectId, pageQuery, rpc } from './common';

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

/** Custom checkout domains (owned by checkout); creating and deleting them needs the Admin role. */
export const domainRoutes = [
  route({
    method: 'GET',
    path: '/domains',
    operationId: 'listDomains',
    response: domainPage,
    scope: 'domain:read',
    role: 'Viewer',
    audience: 'organization',
    tag: 'Domains',
    summary: 'List custom domains (optionally of one site)',
    query: pageQuery(20).extend({ siteId: objectId('siteId').optional() }),
    async handler({ deps, org, query }) {
      const res = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.listDomains, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        page: query.page,
        limit: query.limit,
        ...(query.siteId ? { siteId: query.siteId } : {}),
      });
      return { items: res.items.map(domainView), total: res.total, page: res.page, limit: res.limit };
    },
  }),
  route({
    method: 'GET',
    path: '/domains/verify-cname',
    operationId: 'verifyDomainCname',
    response: cnameCheck,
    scope: 'domain:execute',
    role: 'Editor',
    audience: 'organization',
    tag: 'Domains',
    summary: "Look up the domain's CNAME record and mark the domain verified when it points at the checkout host",
    query: z.object({ domain: text(253, 1) }).strict(),
    async handler({ deps, org, query }) {
      const res = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.verifyDomainCname, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        hostname: query.domain,
      });
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
  route({
    method: 'GET',
    path: '/domains/:id',
    operationId: 'getDomain',
    response: domain,
    scope: 'domain:read',
    role: 'Viewer',
    audience: 'organization',
    tag: 'Domains',
    summary: 'Get a custom domain',
    params: idParams,
    async handler({ deps, org, params }) {
      const d = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.getDomain, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        id: params.id,
      });
      return domainView(d);
    },
  }),
  route({
    method: 'POST',
    path: '/domains',
    operationId: 'createDomain',
    response: domain,
    errors: [409],
    scope: 'domain:create',
    role: 'Admin',
    audience: 'organization',
    tag: 'Domains',
    summary: 'Register a custom domain (409 when any organization already registered the host name)',
    body: createBody,
    status: 201,
    async handler({ deps, org, body }) {
      const d = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.createDomain, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        hostname: body.hostname,
        ...(body.siteId ? { siteId: body.siteId } : {}),
      });
      return domainView(d);
    },
  }),
  route({
    method: 'DELETE',
    path: '/domains/:id',
    operationId: 'deleteDomain',
    response: null,
    scope: 'domain:delete',
    role: 'Admin',
    audience: 'organization',
    tag: 'Domains',
    summary: 'Delete a custom domain (its host name becomes free again)',
    params: idParams,
    status: 204,
    async handler({ deps, org, params }) {
      await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.deleteDomain, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        id: params.id,
      });
      return undefined;
    },
  }),
];
