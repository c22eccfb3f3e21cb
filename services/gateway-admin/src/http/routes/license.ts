import { z } from 'zod';
import { getLicense } from '../../app/get-license';
import { setLicenseState } from '../../app/set-license';
import type { OrganizationDoc } from '../../store/collections';
import { license } from '../responses/organization';
import { resource } from '../route-table';
import { objectId } from './common';

const organization = resource({ tag: 'Organization', scopePrefix: 'organization' });
const system = resource({ tag: 'System', scopePrefix: 'system', audience: 'system' });

const licenseView = (org: OrganizationDoc) => ({
  organizationId: org.id,
  licenseState: org.licenseState,
  updatedAt: org.updatedAt,
});

/** Licence state: merchants read their own; operators set it with a system key. */
export const licenseRoutes = [
  organization({
    method: 'GET',
    path: '/organizations/license',
    operationId: 'getLicense',
    response: license,
    summary: "The organization's licence state (ACTIVE, BLOCKED or NOT_ACTIVATED)",
    async handler({ deps, org }) {
      return licenseView(await getLicense(deps, org.organizationId));
    },
  }),
  system({
    method: 'PUT',
    action: 'execute',
    path: '/system/organizations/:orgId/license',
    operationId: 'setLicenseState',
    response: license,
    role: 'Admin',
    summary: "Set an organization's licence state; BLOCKED and NOT_ACTIVATED stop its public checkout",
    params: z.object({ orgId: objectId('orgId') }),
    body: z.object({ licenseState: z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']) }).strict(),
    async handler({ deps, params, body }) {
      return licenseView(await setLicenseState(deps, params.orgId, body.licenseState));
    },
  }),
];
