import { ForbiddenError, isObjectId, NotFoundError, ValidationError } from '@paymesh/core';
import type { FastifyRequest } from 'fastify';
import type { Guard } from '@paymesh/http';
import type { AdminDeps } from '../app/deps';
import { roleAtLeast } from '../domain/scopes';
import { principalActor, type Principal } from '../domain/principal';
import { ORGANIZATIONS, type OrganizationDoc } from '../store/collections';
import { callerOf } from './caller';
import { errorStatuses } from './responses/envelope';
import type { AdminCaller, AdminMeta, AnyRoute, OrgScope } from './route-table';

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function routeOrgId(req: FastifyRequest): string | undefined {
  const p = req.params;
  return typeof p === 'object' && p !== null && 'orgId' in p && typeof p.orgId === 'string' ? p.orgId : undefined;
}

/**
 * Authenticates the caller and enforces the route's audience, minimum role and scope, in that
 * order: 401 without valid credentials, 403 for a missing scope or too low a role. A route's
 * `:orgId` must be the caller's organization; any other value is a 404.
 */
export async function enforce(
  deps: AdminDeps,
  def: Pick<AnyRoute, 'audience' | 'scope' | 'role'>,
  req: FastifyRequest,
): Promise<{ principal: Principal; org: OrgScope | undefined }> {
  const principal = await callerOf(deps, req);
  if (def.audience === 'system' && principal.kind !== 'system_key') {
    throw new ForbiddenError('this route needs a system API key');
  }
  if (def.audience === 'organization' && principal.kind === 'user' && !principal.organizationId) {
    throw new ValidationError(
      'no organization selected: set the selectedOrganization cookie to one of your organizations',
    );
  }
  if (!principal.scopes.has(def.scope)) throw new ForbiddenError(`missing scope ${def.scope}`);
  if (!roleAtLeast(principal.role, def.role)) throw new ForbiddenError(`role ${def.role} required`);
  if (def.audience === 'system') return { principal, org: undefined };
  const orgParam = routeOrgId(req);
  const org = await resolveOrganization(deps, principal, header(req, 'x-organization-id') ?? orgParam);
  if (orgParam !== undefined && orgParam !== org.organizationId) throw new NotFoundError('organization not found');
  return { principal, org };
}

async function resolveOrganization(
  deps: AdminDeps,
  principal: Principal,
  named: string | undefined,
): Promise<OrgScope> {
  if (principal.kind === 'organization_key') return { organizationId: principal.organizationId, mode: principal.mode };
  if (principal.kind === 'user') {
    if (!principal.organizationId) throw new ValidationError('no organization selected');
    return { organizationId: principal.organizationId, mode: principal.mode };
  }
  if (!named) throw new ValidationError('system keys must name the organization in X-Organization-ID');
  if (!isObjectId(named)) throw new ValidationError('X-Organization-ID must be a 24-hex identifier');
  const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(named);
  if (!org) throw new NotFoundError('organization not found');
  return { organizationId: org.id, mode: principal.mode };
}

/**
 * The guard of every row of the Admin table: an API key or dashboard JWT, enforced against the
 * row's audience, scope and role before the body is read. The request keeps the principal and the
 * organization (Idempotency-Key scopes by them) and its context names the actor and operation for
 * the audit trail of every change the request causes (carried to the services in gRPC metadata).
 */
export const adminGuard: Guard<AdminDeps, AdminCaller, AdminMeta> = {
  at: 'request',
  security: [{ bearerAuth: [] }],
  async caller(deps, req, def) {
    const { principal, org } = await enforce(deps, def, req);
    req.principal = principal;
    req.orgScope = org;
    if (req.requestContext) {
      req.requestContext.actor = principalActor(principal);
      req.requestContext.operation = def.operationId;
    }
    return { principal, org: org ?? { organizationId: '', mode: 'live' } };
  },
  describe: (def) =>
    `Scope \`${def.scope}\`, minimum role ${def.role}${def.audience === 'system' ? ', system API key only' : ''}.`,
  errors: errorStatuses,
};
