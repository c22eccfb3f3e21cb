import { z } from 'zod';
import { ForbiddenError } from '@paymesh/core';
import { email, text } from '@paymesh/http';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../app/members';
import { checkGrant } from '../../domain/grants';
import type { Principal } from '../../domain/principal';
import { ROLES, scopesForRole, type Role } from '../../domain/scopes';
import { member, memberAdded, memberPage } from '../responses/members';
import { resource } from '../route-table';
import { objectId, pageQuery } from './common';

const members = resource({ tag: 'Members', scopePrefix: 'organization' });

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
  members({
    method: 'GET',
    path: '/organizations/:orgId/members',
    operationId: 'listMembers',
    response: memberPage,
    summary: 'List the dashboard users of the organization with their roles',
    params: orgParams,
    query: pageQuery(50),
    async handler({ deps, org, query }) {
      return listMembers(deps, org.organizationId, query.page, query.limit);
    },
  }),
  members({
    method: 'POST',
    action: 'update',
    path: '/organizations/:orgId/members',
    operationId: 'addMember',
    response: memberAdded,
    errors: [409],
    role: 'Admin',
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
  members({
    method: 'PUT',
    path: '/organizations/:orgId/members/:userId',
    operationId: 'changeMemberRole',
    response: member,
    errors: [409],
    role: 'Admin',
    summary: "Change a member's role (the last Admin cannot be demoted)",
    params: memberParams,
    body: z.object({ role: z.enum(ROLES) }).strict(),
    async handler({ deps, org, params, body, principal }) {
      assertMayGrantRole(principal, body.role);
      return changeMemberRole(deps, org.organizationId, params.userId, body.role);
    },
  }),
  members({
    method: 'DELETE',
    action: 'update',
    path: '/organizations/:orgId/members/:userId',
    operationId: 'removeMember',
    response: null,
    errors: [409],
    summary: 'Remove a member (never the last Admin)',
    params: memberParams,
    async handler({ deps, org, params, principal }) {
      if (principal.mode === 'test')
        throw new ForbiddenError('a test-mode caller cannot change who may use the dashboard');
      await removeMember(deps, org.organizationId, params.userId);
    },
  }),
];
