import { digestEquals, newUnguessableObjectId, randomToken, sha256Hex, UnauthenticatedError } from '@paymesh/core';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, formatRefreshToken, parseRefreshToken } from '../domain/session';
import { SESSIONS, type SessionDoc } from '../store/collections';
import type { AdminDeps } from './deps';

/** What a successful sign-in or refresh hands the dashboard. */
export interface SessionTokens {
  accessToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  /** Goes into the HTTP-only refresh cookie, never into a response body. */
  refreshToken: string;
  refreshExpiresAt: string;
  session: SessionDoc;
}

async function signAccessToken(deps: AdminDeps, userId: string, sessionId: string): Promise<string> {
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  return new SignJWT({ sid: sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(ACCESS_TOKEN_ISSUER)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + deps.auth.accessTokenTtlSeconds)
    .sign(deps.auth.jwtKey);
}

/** Opens a session for a user who just proved possession of a WebAuthn credential. */
export async function openSession(deps: AdminDeps, userId: string): Promise<SessionTokens> {
  const now = deps.clock.now();
  // Session IDs travel in cookies and tokens: not derivable from one another.
  const id = newUnguessableObjectId(now);
  const secret = randomToken(32);
  const expiresAt = new Date(now.getTime() + deps.auth.refreshTokenTtlSeconds * 1000).toISOString();
  const session = await deps.store.collection<SessionDoc>(SESSIONS).insert({
    id,
    userId,
    refreshHash: sha256Hex(secret),
    createdAt: now.toISOString(),
    refreshedAt: now.toISOString(),
    expiresAt,
    revokedAt: null,
  });
  deps.logger.info({ userId, sessionId: id }, 'dashboard session opened');
  return {
    accessToken: await signAccessToken(deps, userId, id),
    expiresIn: deps.auth.accessTokenTtlSeconds,
    refreshToken: formatRefreshToken(id, secret),
    refreshExpiresAt: expiresAt,
    session,
  };
}

/**
 * Swaps a refresh token for a new access token and a new refresh token (rotation). Presenting the
 * refresh token that was swapped last means it leaked or was replayed: the whole session ends. Any
 * other wrong secret is just refused (401), so guessing cannot end someone's session.
 * The session's absolute expiry does not move.
 */
export async function refreshSession(deps: AdminDeps, refreshToken: string | undefined): Promise<SessionTokens> {
  const parsed = parseRefreshToken(refreshToken);
  if (!parsed) throw new UnauthenticatedError('missing or malformed refresh token');
  const sessions = deps.store.collection<SessionDoc>(SESSIONS);
  const session = await sessions.get(parsed.sessionId);
  const now = deps.clock.now();
  if (!session || session.revokedAt !== null || new Date(session.expiresAt) <= now)
    throw new UnauthenticatedError('session ended');
  const presented = sha256Hex(parsed.secret);
  const secret = randomToken(32);
  let reused = false;
  const updated = await sessions.update(session.id, (cur) => {
    if (cur.revokedAt !== null) throw new UnauthenticatedError('session ended');
    if (!digestEquals(cur.refreshHash, presented)) {
      if (!cur.previousRefreshHash || !digestEquals(cur.previousRefreshHash, presented))
        throw new UnauthenticatedError('invalid refresh token');
      reused = true;
      return { ...cur, revokedAt: now.toISOString() };
    }
    return {
      ...cur,
      previousRefreshHash: cur.refreshHash,
      refreshHash: sha256Hex(secret),
      refreshedAt: now.toISOString(),
    };
  });
  if (reused) {
    deps.logger.warn({ sessionId: session.id, userId: session.userId }, 'refresh token reused; session revoked');
    throw new UnauthenticatedError('session ended');
  }
  return {
    accessToken: await signAccessToken(deps, updated.userId, updated.id),
    expiresIn: deps.auth.accessTokenTtlSeconds,
    refreshToken: formatRefreshToken(updated.id, secret),
    refreshExpiresAt: updated.expiresAt,
    session: updated,
  };
}

/** Ends the session of a refresh token, only when its secret is the current one; idempotent. */
export async function endSessionOfRefreshToken(
  deps: AdminDeps,
  refreshToken: { sessionId: string; secret: string },
): Promise<void> {
  const session = await deps.store.collection<SessionDoc>(SESSIONS).get(refreshToken.sessionId);
  if (!session || !digestEquals(session.refreshHash, sha256Hex(refreshToken.secret))) return;
  await endSession(deps, session.id);
}

/** Ends the session with this id (from a verified access token or refresh token); idempotent. */
export async function endSession(deps: AdminDeps, sessionId: string): Promise<void> {
  const now = deps.clock.now().toISOString();
  const sessions = deps.store.collection<SessionDoc>(SESSIONS);
  if (!(await sessions.get(sessionId))) return;
  await sessions.update(sessionId, (cur) => {
    return cur.revokedAt !== null ? null : { ...cur, revokedAt: now };
  });
  deps.logger.info({ sessionId }, 'dashboard session ended');
}
