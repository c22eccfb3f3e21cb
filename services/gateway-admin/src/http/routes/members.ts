import { z } from 'zod';
import { ForbiddenError } from '@paymesh/core';
import { email, text } from '@paymesh/http';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../app/members';
import { checkGrant } from '../../domain/grants';
import type { Principal } from '../../domain/principal';
import { ROLES, scopesForRole, type Role } from '../../domain/scopes';
import { member, memberAdded, memberPage } from '../responses/members';
import { route } from '../route-table';
import { objectId, pageQuery } from './common';

const orgParams = z.object({ orgId: objectId('orgId') });
const memberParams = z.object({ orgId: objectId('orgId'), userId: objectId('userId') });

/**
 * A membership hands its holder a dashboard session with every scope of the role, in live mode:
 * the caller must already hold all of that (the same rule as for minting API keys), so a narrow
 * or test-mode key cannot turn itself into a full live dashboard account.
 */
function assertMayGrantRole(principal: Principal, role: Role): void {
  checkGrant(principal, { kind: 'organization', role, scopes: scopesForRole(role), mode: 'live' });
}

/** Dashboard users of an organization and their roles. */
export const memberRoutes = [
  route({
    method: 'GET',
    path: '/organizations/:orgId/members',
    operationId: 'listMembers',
    response: memberPage,
    scope: 'organization:read',
    role: 'Viewer',
    audience: 'organization',
    tag: 'Members',
    summary: 'List the dashboard users of the organization with their roles',
    params: orgParams,
    query: pageQuery(50),
    async handler({ deps, org, query }) {
      return listMembers(deps, org.organizationId, query.page, query.limit);
    },
  }),
  route({
    method: 'POST',
    path: '/organizations/:orgId/members',
    operationId: 'addMember',
    response: memberAdded,
    errors: [409],
    scope: 'organization:update',
    role: 'Admin',
    audience: 'organization',
    tag: 'Members',
    summary:
      'Add a user (created when new, with a one-time WebAuthn enrollment token in this response) to the organization; 409 if already a member',
    params: orgParams,
    body: z
      .object({
        email,
        name: text(200)
          .transform((s) => s.trim())
          .default(''),
        role: z.enum(ROLES),
      })
      .strict(),
    status: 201,
    async handler({ deps, org, body, principal }) {
      assertMayGrantRole(principal, body.role);
      const res = await addMember(deps, org.organizationId, body);
      return { ...res.member, ...(res.enrollmentToken ? { enrollmentToken: res.enrollmentToken } : {}) };
    },
  }),
  route({
    method: 'PUT',
    path: '/organizations/:orgId/members/:userId',
    operationId: 'changeMemberRole',
    response: member,
    errors: [409],
    scope: 'organization:update',
    role: 'Admin',
    audience: 'organization',
    tag: 'Members',
    summary: "Change a member's role (the last Admin cannot be demoted)",
    params: memberParams,
    body: z.object({ role: z.enum(ROLES) }).strict(),
    async handler({ deps, org, params, body, principal }) {
      assertMayGrantRole(principal, body.role);
      return changeMemberRole(deps, org.organizationId, params.userId, body.role);
    },
  }),
  route({
    method: 'DELETE',
    path: '/organizations/:orgId/members/:userId',
    operationId: 'removeMember',
    response: null,
    errors: [409],
    scope: 'organization:update',
    role: 'Admin',
    audience: 'organization',
    tag: 'Members',
    summary: 'Remove a member (never the last Admin)',
    params: memberParams,
    status: 204,
    async handler({ deps, org, params, principal }) {
      if (principal.mode === 'test')
        throw new ForbiddenError('a test-mode caller cannot change who may use the dashboard');
      await removeMember(deps, org.organizationId, params.userId);
    },
  }),
];
