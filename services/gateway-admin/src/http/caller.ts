import type { FastifyRequest } from 'fastify';
import { authenticate } from '../app/authenticate';
import type { AdminDeps } from '../app/deps';
import { principalClientId, type Principal } from '../domain/principal';
import { DATA_MODE_COOKIE, SELECTED_ORG_COOKIE } from '../domain/session';

const resolved = new WeakMap<FastifyRequest, Promise<Principal>>();

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function orgParam(req: FastifyRequest): string | undefined {
  const params = req.params;
  if (typeof params !== 'object' || params === null || !('orgId' in params)) return undefined;
  return typeof params.orgId === 'string' ? params.orgId : undefined;
}

/**
 * The request's principal, authenticated once per request (the rate limiter asks first, to count
 * the request against the caller; the route's enforcement reuses the answer).
 */
export function callerOf(deps: AdminDeps, req: FastifyRequest): Promise<Principal> {
  let p = resolved.get(req);
  if (!p) {
    p = authenticate(deps, {
      authorization: header(req, 'authorization'),
      organizationHeader: header(req, 'x-organization-id'),
      orgParam: orgParam(req),
      selectedOrganization: req.cookies?.[SELECTED_ORG_COOKIE],
      dataMode: req.cookies?.[DATA_MODE_COOKIE],
    });
    p.catch(() => undefined);
    resolved.set(req, p);
  }
  return p;
}

/**
 * Rate-limit identity: the API key or dashboard user when the credentials are valid, else
 * undefined (IP); with the organization whose shared budget the request also counts against.
 * A user counts against an organization only as its member, so naming a foreign organization
 * cannot spend that organization's budget.
 */
export async function rateLimitClient(
  deps: AdminDeps,
  req: FastifyRequest,
): Promise<{ id: string; organization: string | undefined } | undefined> {
  if (!req.headers.authorization) return undefined;
  try {
    const p = await callerOf(deps, req);
    const organization =
      p.kind === 'organization_key'
        ? p.organizationId
        : p.kind === 'user' && p.scopes.size > 0
          ? p.organizationId
          : undefined;
    return { id: principalClientId(p), organization };
  } catch {
    return undefined;
  }
}
