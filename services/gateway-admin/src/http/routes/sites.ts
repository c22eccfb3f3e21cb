import { z } from 'zod';
import type { checkout } from '@paymesh/proto';
import { route } from '../route-table';
import { idParams, pageQuery, rpc } from './common';

const siteBody = z
  .object({
    name: z.string().min(1).max(200),
    url: z.string().url(),
    frontendDomains: z.array(z.string().min(1).max(253)).max(50).default([]),
  })
  .strict();

/** Public shape of a site; the signing secret appears only on creation and rotation. */
export function siteView(s: checkout.Site) {
  return {
    id: s.id,
    organizationId: s.organizationId,
    name: s.name,
    url: s.url,
    frontendDomains: s.frontendDomains,
    testMode: s.testMode,
    webhookSigningSecretHint: s.webhookSigningSecretHint,
    ...(s.webhookSigningSecret ? { webhookSigningSecret: s.webhookSigningSecret } : {}),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export const siteRoutes = [
  route({
    method: 'GET',
    path: '/sites',
    scope: 'site:read',
    role: 'Viewer',
    audience: 'organization',
    tag: 'Sites',
    summary: 'List sites',
    query: pageQuery(20),
    async handler({ deps, org, query }) {
      const res = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.listSites, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        page: query.page,
        limit: query.limit,
      });
      return { items: res.items.map(siteView), total: res.total, page: res.page, limit: res.limit };
    },
  }),
  route({
    method: 'GET',
    path: '/sites/:id',
    scope: 'site:read',
    role: 'Viewer',
    audience: 'organization',
    tag: 'Sites',
    summary: 'Get a site',
    params: idParams,
    async handler({ deps, org, params }) {
      const s = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.getSite, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        id: params.id,
      });
      return siteView(s);
    },
  }),
  route({
    method: 'POST',
    path: '/sites',
    scope: 'site:create',
    role: 'Editor',
    audience: 'organization',
    tag: 'Sites',
    summary: 'Create a site (returns its whsec_ IPN signing secret once)',
    body: siteBody,
    status: 201,
    async handler({ deps, org, body }) {
      const s = await rpc(deps, 'checkout', deps.clients.checkout, deps.clients.checkout.createSite, {
        organizationId: org.organizationId,
        testMode: org.mode === 'test',
        name: body.name,
        url: body.url,
        frontendDomains: body.frontendDomains,
      });
      return siteView(s);
    },
  }),
];
