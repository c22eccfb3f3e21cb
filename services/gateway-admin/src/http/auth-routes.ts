import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ForbiddenError, UnauthenticatedError } from '@paymesh/core';
import { email, objectId, registerRows, row, text, type Guard, type Row } from '@paymesh/http';
import { completeSignIn } from '../app/complete-sign-in';
import type { AdminDeps } from '../app/deps';
import { endSession, endSessionOfRefreshToken, refreshSession, type SessionTokens } from '../app/sessions';
import { startSignIn } from '../app/start-sign-in';
import { parseRefreshToken, REFRESH_COOKIE, SELECTED_ORG_COOKIE } from '../domain/session';
import {
  MEMBERSHIPS,
  ORGANIZATIONS,
  USERS,
  type MembershipDoc,
  type OrganizationDoc,
  type UserDoc,
} from '../store/collections';
import { authenticate } from '../app/authenticate';
import type { Principal } from '../domain/principal';
import { accessToken, loginCheck, signedIn, signInStarted } from './responses/auth';

const b64url = z
  .string()
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url')
  .max(16_384);
const transport = z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const clientExtensionResults = z
  .object({
    appid: z.boolean().optional(),
    credProps: z.object({ rk: z.boolean().optional() }).optional(),
    hmacCreateSecret: z.boolean().optional(),
  })
  .default({});
const credentialCommon = {
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
  clientExtensionResults,
};
/** navigator.credentials.create() result, JSON-encoded (WebAuthn RegistrationResponseJSON). */
const attestation = z.object({
  ...credentialCommon,
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    authenticatorData: b64url.optional(),
    transports: z.array(transport).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url.optional(),
  }),
});
/** navigator.credentials.get() result, JSON-encoded (WebAuthn AuthenticationResponseJSON). */
const assertion = z.object({
  ...credentialCommon,
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
});

const tokenResponse = (t: SessionTokens) => ({
  accessToken: t.accessToken,
  tokenType: 'Bearer' as const,
  expiresIn: t.expiresIn,
});

function setRefreshCookie(deps: AdminDeps, reply: FastifyReply, t: SessionTokens): void {
  reply.setCookie(REFRESH_COOKIE, t.refreshToken, {
    httpOnly: true,
    secure: deps.auth.cookieSecure,
    sameSite: 'strict',
    path: '/',
    expires: new Date(t.refreshExpiresAt),
  });
}

function clearRefreshCookie(deps: AdminDeps, reply: FastifyReply): void {
  reply.clearCookie(REFRESH_COOKIE, { httpOnly: true, secure: deps.auth.cookieSecure, sameSite: 'strict', path: '/' });
}

/** The bearer's principal without organization context (a stale selectedOrganization cookie must not break sign-out or the login check). */
function bearer(deps: AdminDeps, authorization: string | undefined): Promise<Principal> {
  return authenticate(deps, {
    authorization,
    organizationHeader: undefined,
    orgParam: undefined,
    selectedOrganization: undefined,
  });
}

/**
 * Cross-site guard of the routes the refresh cookie authenticates (refresh, logout), on top of
 * the cookie's SameSite=Strict: a browser request must come from one of the dashboard's origins
 * (WEBAUTHN_ORIGINS) and must not be marked cross-site by Sec-Fetch-Site. Callers that are not
 * browsers send neither header and pass.
 */
export function assertSameOriginRequest(deps: AdminDeps, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (origin !== undefined && !deps.auth.origins.includes(origin))
    throw new ForbiddenError('cross-site request refused: Origin is not a dashboard origin');
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site') throw new ForbiddenError('cross-site request refused');
}

const NO_SCOPE = 'No API key or scope: dashboard sign-in with WebAuthn.';

/**
 * The guards of the sign-in rows: these routes authenticate, they are not authorized (no scope or
 * role), so they are not in the scoped route table.
 */
const signIn = { at: 'handler', security: [], caller: () => ({}), describe: () => NO_SCOPE } satisfies Guard<
  AdminDeps,
  object
>;
/** The refresh cookie, guarded against cross-site use (assertSameOriginRequest). */
const sameOrigin = (security: Guard<AdminDeps, object>['security']): Guard<AdminDeps, object> => ({
  ...signIn,
  security,
  caller: (deps, req) => {
    assertSameOriginRequest(deps, req);
    return {};
  },
});
/** The access JWT of a dashboard session (its principal without organization context). */
const dashboardSession: Guard<AdminDeps, { principal: Principal }> = {
  ...signIn,
  security: [{ bearerAuth: [] }],
  caller: async (deps, req) => ({ principal: await bearer(deps, req.headers.authorization) }),
};

const authRow = row<AdminDeps>();
const auth = { tag: 'Auth', guard: signIn } as const;

/** Dashboard sign-in: WebAuthn ceremonies that end in a short-lived access JWT plus an HTTP-only refresh cookie. */
export const authRows: Row<AdminDeps>[] = [
  authRow({
    ...auth,
    method: 'POST',
    path: '/auth',
    operationId: 'startSignIn',
    summary:
      'Start a WebAuthn sign-in: authentication options, or registration options when an enrollment token is given',
    body: z.object({ email, enrollmentToken: text(200, 1).optional() }).strict(),
    response: signInStarted,
    errors: [400, 429],
    async handler({ deps, body }) {
      const started = await startSignIn(deps, body);
      return { ...started, options: { ...started.options } };
    },
  }),
  authRow({
    ...auth,
    method: 'POST',
    path: '/auth/authenticate-complete',
    operationId: 'completeSignIn',
    summary: 'Finish the WebAuthn ceremony; returns an access JWT and sets the HTTP-only refresh cookie',
    body: z.object({ challengeId: objectId('challengeId'), response: z.union([attestation, assertion]) }).strict(),
    response: signedIn,
    errors: [400, 401, 409, 429],
    async handler({ deps, body, reply }) {
      const res = await completeSignIn(deps, body);
      setRefreshCookie(deps, reply, res.tokens);
      return {
        ...tokenResponse(res.tokens),
        user: { id: res.user.id, email: res.user.email, name: res.user.name },
        organizations: res.organizations,
      };
    },
  }),
  authRow({
    tag: 'Auth',
    guard: sameOrigin([{ refreshCookie: [] }]),
    method: 'POST',
    path: '/auth/refresh-token',
    operationId: 'refreshSession',
    summary: 'New access JWT from the refresh cookie (the cookie is rotated)',
    response: accessToken,
    errors: [400, 401, 403, 429],
    async handler({ deps, req, reply }) {
      try {
        const t = await refreshSession(deps, req.cookies[REFRESH_COOKIE]);
        setRefreshCookie(deps, reply, t);
        return tokenResponse(t);
      } catch (err) {
        if (err instanceof UnauthenticatedError) clearRefreshCookie(deps, reply);
        throw err;
      }
    },
  }),
  authRow({
    tag: 'Auth',
    // The refresh cookie, the access JWT, or neither (then it only clears the cookie).
    guard: sameOrigin([{ refreshCookie: [] }, { bearerAuth: [] }, {}]),
    method: 'POST',
    path: '/auth/logout',
    operationId: 'signOut',
    summary: 'End the session (refresh cookie and access tokens stop working) and clear the cookie',
    response: null,
    errors: [400, 403, 429],
    async handler({ deps, req, reply }) {
      const fromCookie = parseRefreshToken(req.cookies[REFRESH_COOKIE]);
      if (fromCookie) await endSessionOfRefreshToken(deps, fromCookie);
      if (req.headers.authorization) {
        const p = await bearer(deps, req.headers.authorization).catch(() => undefined);
        if (p?.kind === 'user') await endSession(deps, p.sessionId);
      }
      clearRefreshCookie(deps, reply);
    },
  }),
  authRow({
    tag: 'Auth',
    guard: dashboardSession,
    method: 'GET',
    path: '/auth/login/check',
    operationId: 'checkLogin',
    summary: 'Who the access JWT belongs to, with organizations and roles; 401 when not signed in',
    response: loginCheck,
    errors: [400, 401, 429],
    async handler({ deps, req, principal: p }) {
      if (p.kind !== 'user') throw new UnauthenticatedError('not a dashboard session');
      const user = await deps.store.collection<UserDoc>(USERS).get(p.userId);
      if (!user) throw new UnauthenticatedError('session ended');
      const memberships = (
        await deps.store.collection<MembershipDoc>(MEMBERSHIPS).find({ userId: user.id }, { sort: { createdAt: 1 } })
      ).items;
      const organizations = [];
      for (const m of memberships) {
        const org = await deps.store.collection<OrganizationDoc>(ORGANIZATIONS).get(m.organizationId);
        if (org) organizations.push({ id: org.id, name: org.name, role: m.role });
      }
      const selected = organizations.find((o) => o.id === req.cookies[SELECTED_ORG_COOKIE]);
      return {
        authenticated: true as const,
        user: { id: user.id, email: user.email, name: user.name },
        organizations,
        /** The cookie's organization when the user belongs to it, else null (the dashboard should pick one). */
        selectedOrganization: selected?.id ?? null,
        role: selected?.role ?? null,
      };
    },
  }),
];

/** The sign-in rows under the scope's prefix (`hidden`: left out of the document, for the /v1 alias). */
export function registerAuthRoutes(app: FastifyInstance, deps: AdminDeps, hidden: boolean): void {
  registerRows(app, authRows, { deps, input: 'schema', hidden });
}
