/** Issuer and audience of dashboard access tokens (JWT, HS256). */
export const ACCESS_TOKEN_ISSUER = 'paymesh-admin';
export const ACCESS_TOKEN_AUDIENCE = 'paymesh-admin-api';

/** Name of the HTTP-only cookie carrying the refresh token. */
export const REFRESH_COOKIE = 'paymesh_refresh';
/** Cookie with the organization the dashboard acts on when the route has no `:orgId`. */
export const SELECTED_ORG_COOKIE = 'selectedOrganization';
/**
 * The data a dashboard session acts on: `test` for the organization's test-mode data (what
 * sk_test_ keys see), anything else or none for live data. Like the organization cookie it grants
 * nothing: the role and scopes stay the membership's, and test mode only narrows what is reached.
 */
export const DATA_MODE_COOKIE = 'dataMode';

export interface ParsedRefreshToken {
  sessionId: string;
  secret: string;
}

const REFRESH_FORMAT = /^([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

/** Refresh tokens are `<sessionId>.<secret>`: the id finds the session, the secret (stored hashed) proves possession. */
export function formatRefreshToken(sessionId: string, secret: string): string {
  return `${sessionId}.${secret}`;
}

export function parseRefreshToken(token: string | undefined): ParsedRefreshToken | null {
  const m = token ? REFRESH_FORMAT.exec(token) : null;
  if (!m || !m[1] || !m[2]) return null;
  return { sessionId: m[1], secret: m[2] };
}

/** A compact JWS has three base64url parts; API keys never look like this. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}
