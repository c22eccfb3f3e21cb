import { digestEquals, NotFoundError, trackBackground, UnauthenticatedError, ValidationError } from '@paymesh/core';
import { jwtVerify } from 'jose';
import { hashKeySecret, looksLikeApiKey, parseApiKey } from '../domain/api-key';
import type { Principal } from '../domain/principal';
import { scopesForRole } from '../domain/scopes';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, looksLikeJwt } from '../domain/session';
import {
  API_KEYS,
  MEMBERSHIPS,
  ORGANIZATIONS,
  SESSIONS,
  USERS,
  type ApiKeyDoc,
  type MembershipDoc,
  type OrganizationDoc,
  type SessionDoc,
  type UserDoc,
} from '../store/collections';
import type { AdminDeps } from './deps';

const LAST_USED_RESOLUTION_MS = 60_000;

/** What a request presents to prove who it is and which organization it acts on. */
export interface Credentials {
  authorization: string | undefined;
  organizationHeader: string | undefined;
  /** The route's `:orgId`, when it has one. */
  orgParam: string | undefined;
  /** The `selectedOrganization` cookie (dashboard sessions only). */
  selectedOrganization: string | undefined;
  /** The `dataMode` cookie (dashboard sessions only): `test` acts on test-mode data, else live. */
  dataMode?: string | undefined;
}

/**
 * Resolves `Authorization: Bearer <token>` (an API key or a dashboard JWT) to a principal.
 * Revoked keys, rotated-away secrets, expired keys, keys of deleted organizations, bad or expired
 * JWTs and ended sessions all get the same kind of 401.
 */
export async function authenticate(deps: AdminDeps, creds: Credentials): Promise<Principal> {
  if (!creds.authorization) throw new UnauthenticatedError('missing Authorization header');
  const m = /^Bearer\s+(\S+)$/i.exec(creds.authorization.trim());
  if (!m || !m[1]) throw new UnauthenticatedError('Authorization must be "Bearer <token>"');
  const token = m[1];
  if (looksLikeApiKey(token)) return authenticateKey(deps, token, creds.organizationHeader);
  if (looksLikeJwt(token)) return authenticateUser(deps, token, creds);
  throw new UnauthenticatedError('invalid token');
}

async function authenticateKey(
  deps: AdminDeps,
  token: string,
  organizationHeader: string | undefined,
): Promise<Principal> {
  const parsed = parseApiKey(token);
  if (!parsed) throw new UnauthenticatedError('invalid API key');
  const key = await deps.store.collection<ApiKeyDoc>(API_KEYS).findOne({ keyId: parsed.keyId });
  const now = deps.clock.now();
  if (
    !key ||
    key.status !== 'active' ||
    key.mode !== parsed.mode ||
    !digestEquals(key.secretHash, hashKeySecret(parsed.secret)) ||
    (key.expiresAt !== null && new Date(key.expiresAt) <= now)
  ) {
    throw new UnauthenticatedError('invalid API key');
  }
  touchLastUsed(deps, key, now);
  const scopes = new Set(key.scopes);
  if (key.kind === 'organization') {
    if (organizationHeader !== undefined) {
      throw new ValidationError(
        'X-Organization-ID must not be sent with an organization API key; the key is bound to its organization',
      );
    }
    if (!key.organizationId) throw new UnauthenticatedError('invalid API key');
    const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(key.organizationId);
    if (!org) throw new UnauthenticatedError('invalid API key');
    return {
      kind: 'organization_key',
      keyId: key.keyId,
      keyName: key.name,
      organizationId: key.organizationId,
      mode: key.mode,
      role: key.role,
      scopes,
    };
  }
  return { kind: 'system_key', keyId: key.keyId, keyName: key.name, mode: key.mode, role: key.role, scopes };
}

/**
 * Dashboard JWT: valid signature, issuer, audience and expiry, and a session that is still open
 * (logout ends it at once). Role and scopes come from the membership in the organization named by
 * the route's `:orgId`, else by the `selectedOrganization` cookie; a non-member gets 404. The
 * `dataMode` cookie picks live (default) or test-mode data, with the same role and scopes.
 */
async function authenticateUser(deps: AdminDeps, token: string, creds: Credentials): Promise<Principal> {
  let sub: unknown;
  let sid: unknown;
  try {
    const { payload } = await jwtVerify(token, deps.auth.jwtKey, {
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
      algorithms: ['HS256'],
      currentDate: deps.clock.now(),
    });
    sub = payload.sub;
    sid = payload.sid;
  } catch {
    throw new UnauthenticatedError('invalid or expired access token');
  }
  if (typeof sub !== 'string' || typeof sid !== 'string') throw new UnauthenticatedError('invalid access token');
  if (creds.organizationHeader !== undefined) {
    throw new ValidationError(
      'X-Organization-ID is for system keys; dashboard sessions select the organization with the selectedOrganization cookie',
    );
  }
  const session = await deps.store.collection<SessionDoc>(SESSIONS).get(sid);
  const now = deps.clock.now();
  if (!session || session.userId !== sub || session.revokedAt !== null || new Date(session.expiresAt) <= now) {
    throw new UnauthenticatedError('session ended');
  }
  const user = await deps.store.collection<UserDoc>(USERS).get(sub);
  if (!user) throw new UnauthenticatedError('session ended');
  const organizationId = creds.orgParam ?? creds.selectedOrganization;
  const mode = creds.dataMode === 'test' ? 'test' : 'live';
  if (!organizationId) {
    return {
      kind: 'user',
      userId: user.id,
      email: user.email,
      sessionId: session.id,
      organizationId: undefined,
      role: 'Viewer',
      scopes: new Set(),
      mode,
    };
  }
  const membership = await deps.store
    .collection<MembershipDoc>(MEMBERSHIPS)
    .findOne({ organizationId, userId: user.id });
  if (!membership) throw new NotFoundError('organization not found');
  return {
    kind: 'user',
    userId: user.id,
    email: user.email,
    sessionId: session.id,
    organizationId,
    role: membership.role,
    scopes: new Set(scopesForRole(membership.role)),
    mode,
  };
}

function touchLastUsed(deps: AdminDeps, key: ApiKeyDoc, now: Date): void {
  if (key.lastUsedAt && now.getTime() - new Date(key.lastUsedAt).getTime() < LAST_USED_RESOLUTION_MS) return;
  void trackBackground(
    deps.store.collection<ApiKeyDoc>(API_KEYS).update(key.id, (cur) => ({ ...cur, lastUsedAt: now.toISOString() }), 1),
  ).catch((err: unknown) => deps.logger.debug({ err, keyId: key.keyId }, 'lastUsedAt not updated'));
}
