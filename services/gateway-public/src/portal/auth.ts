import { createHmac, randomInt } from 'node:crypto';
import {
  ConflictError,
  digestEquals,
  ErrorCode,
  newUnguessableObjectId,
  randomToken,
  sha256Hex,
  UnauthenticatedError,
  verifyPortalLink,
} from '@paymesh/core';
import { isVersionConflict } from '@paymesh/store';
import { rpc } from '../clients';
import {
  PORTAL_LOGINS,
  PORTAL_MAGIC_LINK_CLAIMS,
  PORTAL_OTP_CODES,
  PORTAL_OTP_REQUESTS,
  PORTAL_SESSION_TOKENS,
  type LoginDoc,
  type MagicLinkClaimDoc,
  type OtpCodeDoc,
  type OtpRequestDoc,
  type SessionTokenDoc,
} from '../store/collections';
import { mayUsePortal, orgPortalSettings, type Tenant } from './buyer';
import type { PortalDeps, PortalPrincipal } from './deps';

/** What a sign-in or refresh hands the portal. */
export interface PortalTokens {
  /** Opaque bearer token (not a JWT). */
  token: string;
  expiresAt: string;
  /** Goes into the HTTP-only refresh cookie only. */
  refreshToken: string;
  refreshExpiresAt: string;
}

const ROTATED_KEPT = 50;
const BAD_CODE = 'invalid or expired code: request a new one';

const iso = (ms: number) => new Date(ms).toISOString();

function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

const codeHashOf = (deps: PortalDeps, t: Tenant, email: string, code: string) =>
  hmacHex(deps.settings.otpKey, `otp\n${t.organizationId}\n${t.mode}\n${email}\n${code}`);

/**
 * Counts a code request against the address's budget (known or not, so the answer cannot tell
 * them apart). Over budget: the seconds until the oldest request in the window leaves it.
 */
export async function chargeOtpRequest(deps: PortalDeps, email: string): Promise<{ retryAfterSeconds: number } | null> {
  const s = deps.settings;
  const now = deps.clock.now().getTime();
  const windowStart = iso(now - s.otpRequestWindowSeconds * 1000);
  const emailDigest = hmacHex(s.otpKey, `otp-request\n${email}`);
  const requests = deps.store.collection<OtpRequestDoc>(PORTAL_OTP_REQUESTS);
  await requests.deleteMany({ emailDigest, createdAt: { $lt: windowStart } });
  const recent = await requests.find(
    { emailDigest, createdAt: { $gte: windowStart } },
    { sort: { createdAt: 1 }, limit: s.otpRequestsPerEmail },
  );
  if (recent.items.length >= s.otpRequestsPerEmail) {
    const oldest = recent.items[0]?.createdAt ?? iso(now);
    return {
      retryAfterSeconds: Math.max(
        1,
        Math.ceil((new Date(oldest).getTime() + s.otpRequestWindowSeconds * 1000 - now) / 1000),
      ),
    };
  }
  await requests.insert({ emailDigest, createdAt: iso(now) });
  return null;
}

/**
 * Issues and e-mails a code when the organization has the portal on and the address has a
 * portal-visible document or subscription there; otherwise does nothing. Runs after the answer
 * has gone out, so the caller cannot time the difference.
 */
export async function issueOtp(deps: PortalDeps, t: Tenant, email: string, requestId: string): Promise<void> {
  if (!(await mayUsePortal(deps, t, email))) {
    deps.logger.info(
      { requestId, organizationId: t.organizationId, mode: t.mode },
      'portal code requested for an address without portal access; nothing sent',
    );
    return;
  }
  const now = deps.clock.now();
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const doc = await deps.store.collection<OtpCodeDoc>(PORTAL_OTP_CODES).insert({
    organizationId: t.organizationId,
    mode: t.mode,
    email,
    codeHash: codeHashOf(deps, t, email, code),
    attempts: 0,
    expiresAt: iso(now.getTime() + deps.settings.otpTtlSeconds * 1000),
    usedAt: null,
    createdAt: now.toISOString(),
  });
  // Only the latest code counts: the buyer's earlier ones go.
  await deps.store
    .collection<OtpCodeDoc>(PORTAL_OTP_CODES)
    .deleteMany({ organizationId: t.organizationId, mode: t.mode, email, createdAt: { $lt: doc.createdAt } });
  const minutes = Math.max(1, Math.round(deps.settings.otpTtlSeconds / 60));
  const n = deps.clients.notifications;
  await rpc(
    n,
    n.sendEmail,
    {
      organizationId: t.organizationId,
      testMode: t.mode === 'test',
      idempotencyKey: `portal-otp-${doc.id}`,
      sourceKind: 'portal_otp',
      sourceId: doc.id,
      to: [email],
      cc: [],
      subject: 'Your sign-in code for the customer portal',
      text: `Your sign-in code is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not ask for it, ignore this e-mail.\n`,
      attachments: [],
    },
    deps.clients.deadlineMs,
    'notifications-ipn',
  );
  deps.logger.info(
    { requestId, organizationId: t.organizationId, mode: t.mode, otpId: doc.id },
    'portal sign-in code sent',
  );
}

/**
 * Checks a code against the buyer's latest one. Every try counts (compare-and-set on the code
 * record); after `otpMaxAttempts` tries the code is dead, even for the right code. Success uses it up.
 */
export async function verifyOtp(deps: PortalDeps, t: Tenant, email: string, code: string): Promise<PortalTokens> {
  if (!deps.settings.enabled) throw new UnauthenticatedError(BAD_CODE);
  const codes = deps.store.collection<OtpCodeDoc>(PORTAL_OTP_CODES);
  for (let attempt = 0; attempt < 5; attempt++) {
    const latest = await codes.findOne(
      { organizationId: t.organizationId, mode: t.mode, email },
      { sort: { createdAt: -1 } },
    );
    const now = deps.clock.now();
    if (
      !latest ||
      latest.usedAt !== null ||
      latest.attempts >= deps.settings.otpMaxAttempts ||
      new Date(latest.expiresAt) <= now
    ) {
      throw new UnauthenticatedError(BAD_CODE);
    }
    const match = /^\d{6}$/.test(code) && digestEquals(latest.codeHash, codeHashOf(deps, t, email, code));
    try {
      await codes.replace({
        ...latest,
        attempts: latest.attempts + 1,
        usedAt: match ? now.toISOString() : null,
      });
    } catch (err) {
      if (isVersionConflict(err)) continue;
      throw err;
    }
    if (!match) throw new UnauthenticatedError(BAD_CODE);
    return openLogin(deps, t, email, 'otp');
  }
  throw new UnauthenticatedError(BAD_CODE);
}

async function newSessionToken(
  deps: PortalDeps,
  loginId: string,
  loginExpiresAt: string,
): Promise<{ token: string; expiresAt: string }> {
  const now = deps.clock.now();
  const token = randomToken(32);
  // A session token never outlives its sign-in.
  const expiresAt = iso(
    Math.min(now.getTime() + deps.settings.sessionTtlSeconds * 1000, new Date(loginExpiresAt).getTime()),
  );
  await deps.store
    .collection<SessionTokenDoc>(PORTAL_SESSION_TOKENS)
    .insert({ tokenHash: sha256Hex(token), loginId, expiresAt, createdAt: now.toISOString() });
  return { token, expiresAt };
}

async function openLogin(
  deps: PortalDeps,
  t: Tenant,
  email: string,
  method: LoginDoc['method'],
  id = newUnguessableObjectId(deps.clock.now()),
): Promise<PortalTokens> {
  const now = deps.clock.now();
  const secret = randomToken(32);
  const expiresAt = iso(now.getTime() + deps.settings.refreshTtlSeconds * 1000);
  await deps.store.collection<LoginDoc>(PORTAL_LOGINS).insert({
    id,
    organizationId: t.organizationId,
    mode: t.mode,
    email,
    method,
    refreshHash: sha256Hex(secret),
    rotatedRefreshHashes: [],
    createdAt: now.toISOString(),
    refreshedAt: now.toISOString(),
    expiresAt,
    revokedAt: null,
    revokedReason: null,
  });
  deps.logger.info({ organizationId: t.organizationId, mode: t.mode, loginId: id, method }, 'portal sign-in');
  const session = await newSessionToken(deps, id, expiresAt);
  return { ...session, refreshToken: `${id}.${secret}`, refreshExpiresAt: expiresAt };
}

function parseRefresh(value: string | undefined): { loginId: string; secret: string } | null {
  if (!value || value.length > 200) return null;
  const m = /^([0-9a-f]{24})\.([A-Za-z0-9_-]{20,100})$/.exec(value);
  const [, loginId, secret] = m ?? [];
  return loginId && secret ? { loginId, secret } : null;
}

/**
 * Swaps the refresh cookie's secret for a new one and a new session token. A secret that was
 * already swapped away means the cookie was copied: the whole sign-in ends (every session token
 * of it stops working) and the answer is 401. Any other unknown secret is just 401.
 */
export async function refreshLogin(deps: PortalDeps, cookie: string | undefined): Promise<PortalTokens> {
  const parsed = parseRefresh(cookie);
  if (!parsed) throw new UnauthenticatedError('missing or malformed portal refresh cookie');
  const logins = deps.store.collection<LoginDoc>(PORTAL_LOGINS);
  const login = await logins.get(parsed.loginId);
  const now = deps.clock.now();
  if (!login || login.revokedAt !== null || new Date(login.expiresAt) <= now || !deps.settings.enabled)
    throw new UnauthenticatedError('portal session ended');
  const presented = sha256Hex(parsed.secret);
  const secret = randomToken(32);
  let reused = false;
  const updated = await logins.update(
    login.id,
    (cur) => {
      if (cur.revokedAt !== null) throw new UnauthenticatedError('portal session ended');
      if (digestEquals(cur.refreshHash, presented)) {
        return {
          ...cur,
          refreshHash: sha256Hex(secret),
          rotatedRefreshHashes: [cur.refreshHash, ...cur.rotatedRefreshHashes].slice(0, ROTATED_KEPT),
          refreshedAt: now.toISOString(),
        };
      }
      if (!cur.rotatedRefreshHashes.some((h) => digestEquals(h, presented)))
        throw new UnauthenticatedError('invalid portal refresh cookie');
      reused = true;
      return { ...cur, revokedAt: now.toISOString(), revokedReason: 'refresh_reuse' };
    },
    5,
    login,
  );
  if (reused) {
    await deps.store.collection<SessionTokenDoc>(PORTAL_SESSION_TOKENS).deleteMany({ loginId: login.id });
    deps.logger.warn(
      { loginId: login.id, organizationId: login.organizationId },
      'portal refresh cookie reused; sign-in revoked',
    );
    throw new UnauthenticatedError('portal session ended');
  }
  // Expired session tokens of this sign-in are of no use any more.
  await deps.store
    .collection<SessionTokenDoc>(PORTAL_SESSION_TOKENS)
    .deleteMany({ loginId: updated.id, expiresAt: { $lt: now.toISOString() } });
  const session = await newSessionToken(deps, updated.id, updated.expiresAt);
  return { ...session, refreshToken: `${updated.id}.${secret}`, refreshExpiresAt: updated.expiresAt };
}

async function revokeLogin(deps: PortalDeps, loginId: string, reason: string): Promise<void> {
  const logins = deps.store.collection<LoginDoc>(PORTAL_LOGINS);
  if (!(await logins.get(loginId))) return;
  const now = deps.clock.now().toISOString();
  await logins.update(loginId, (cur) => {
    return cur.revokedAt !== null ? null : { ...cur, revokedAt: now, revokedReason: reason };
  });
  await deps.store.collection<SessionTokenDoc>(PORTAL_SESSION_TOKENS).deleteMany({ loginId });
  deps.logger.info({ loginId, reason }, 'portal sign-in ended');
}

/** Ends the sign-in of the refresh cookie (current secret only) and of the bearer token; idempotent. */
export async function logout(
  deps: PortalDeps,
  cookie: string | undefined,
  authorization: string | undefined,
): Promise<void> {
  const parsed = parseRefresh(cookie);
  if (parsed) {
    const login = await deps.store.collection<LoginDoc>(PORTAL_LOGINS).get(parsed.loginId);
    if (login && digestEquals(login.refreshHash, sha256Hex(parsed.secret))) await revokeLogin(deps, login.id, 'logout');
  }
  const principal = await principalOf(deps, authorization).catch(() => null);
  if (principal) await revokeLogin(deps, principal.loginId, 'logout');
}

function bearerOf(authorization: string | undefined): string | null {
  const m = /^Bearer ([A-Za-z0-9_-]{20,100})$/.exec(authorization ?? '');
  return m?.[1] ?? null;
}

async function principalOf(deps: PortalDeps, authorization: string | undefined): Promise<PortalPrincipal> {
  const token = bearerOf(authorization);
  if (!token)
    throw new UnauthenticatedError('missing or malformed portal session token (Authorization: Bearer <token>)');
  const now = deps.clock.now();
  const session = await deps.store
    .collection<SessionTokenDoc>(PORTAL_SESSION_TOKENS)
    .findOne({ tokenHash: sha256Hex(token) });
  if (!session || new Date(session.expiresAt) <= now)
    throw new UnauthenticatedError('portal session token expired or unknown: refresh or sign in again');
  const login = await deps.store.collection<LoginDoc>(PORTAL_LOGINS).get(session.loginId);
  if (!login || login.revokedAt !== null || new Date(login.expiresAt) <= now)
    throw new UnauthenticatedError('portal session ended: sign in again');
  return { loginId: login.id, organizationId: login.organizationId, mode: login.mode, email: login.email };
}

/**
 * The buyer behind a bearer token: 401 unless the token is current, its sign-in not ended, and the
 * portal still on for the deployment and the organization.
 */
export async function authenticatePortal(
  deps: PortalDeps,
  authorization: string | undefined,
): Promise<PortalPrincipal> {
  const principal = await principalOf(deps, authorization);
  if (!deps.settings.enabled) throw new UnauthenticatedError('the customer portal is turned off');
  const org = await orgPortalSettings(deps, principal);
  if (!org.enabled) throw new UnauthenticatedError('the customer portal is turned off for this organization');
  return principal;
}

/**
 * Exchanges a magic link for a sign-in. The link's id is claimed once by inserting it (a unique
 * key): a second exchange, however close, finds it taken. Replayed, expired, malformed or tampered
 * links, and links while magic links are off, are 401.
 */
export async function exchangeMagicLink(deps: PortalDeps, token: unknown): Promise<PortalTokens> {
  const s = deps.settings;
  if (!s.enabled || !s.magicLinksEnabled) throw new UnauthenticatedError('portal magic links are turned off');
  const check = verifyPortalLink(s.linkKey, token, deps.clock.now());
  if (!check.ok)
    throw new UnauthenticatedError(
      check.reason === 'expired' ? 'this sign-in link has expired' : 'malformed sign-in link',
    );
  const c = check.claims;
  const t: Tenant = { organizationId: c.organizationId, mode: c.mode };
  const org = await orgPortalSettings(deps, t);
  if (!org.enabled || !org.magicLinksEnabled)
    throw new UnauthenticatedError('portal magic links are turned off for this organization');
  const loginId = newUnguessableObjectId(deps.clock.now());
  try {
    await deps.store.collection<MagicLinkClaimDoc>(PORTAL_MAGIC_LINK_CLAIMS).insert({
      id: c.linkId,
      organizationId: c.organizationId,
      loginId,
      claimedAt: deps.clock.now().toISOString(),
      expiresAt: c.expiresAt.toISOString(),
    });
  } catch (err) {
    if (err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY)
      throw new UnauthenticatedError('this sign-in link was already used');
    throw err;
  }
  return openLogin(deps, t, c.email, 'magic_link', loginId);
}
