import { ForbiddenError, isObjectId, NotFoundError, ValidationError } from '@paymesh/core';
import type { FastifyRequest } from 'fastify';
import { authenticate } from '../app/authenticate';
import type { AdminDeps } from '../app/deps';
import { roleAtLeast } from '../domain/scopes';
import type { Principal } from '../domain/principal';
import { ORGANIZATIONS, type OrganizationDoc } from '../store/collections';
import type { AnyRoute, OrgScope } from './route-table';

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Authenticates the caller and enforces the route's audience, minimum role and scope, in that
 * order: 401 without valid credentials, 403 for a missing scope or too low a role.
 */
export async function enforce(deps: AdminDeps, def: AnyRoute, req: FastifyRequest): Promise<{ principal: Principal; org: OrgScope | undefined }> {
  const orgHeader = header(req, 'x-organization-id');
  const principal = await authenticate(deps, header(req, 'authorization'), orgHeader);
  if (def.audience === 'system' && principal.kind !== 'system_key') {
    throw new ForbiddenError('this route needs a system API key');
  }
  if (!principal.scopes.has(def.scope)) throw new ForbiddenError(`missing scope ${def.scope}`);
  if (!roleAtLeast(principal.role, def.role)) throw new ForbiddenError(`role ${def.role} required`);
  if (def.audience === 'system') return { principal, org: undefined };
  return { principal, org: await resolveOrganization(deps, principal, orgHeader) };
}

async function resolveOrganization(deps: AdminDeps, principal: Principal, orgHeader: string | undefined): Promise<OrgScope> {
  if (principal.kind === 'organization_key') return { organizationId: principal.organizationId, mode: principal.mode };
  if (principal.kind === 'user') {
    if (!principal.organizationId) throw new ValidationError('no organization selected');
    return { organizationId: principal.organizationId, mode: principal.mode };
  }
  if (!orgHeader) throw new ValidationError('system keys must name the organization in X-Organization-ID');
  if (!isObjectId(orgHeader)) throw new ValidationError('X-Organization-ID must be a 24-hex identifier');
  const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(orgHeader);
  if (!org) throw new NotFoundError('organization not found');
  return { organizationId: org.id, mode: principal.mode };
}
