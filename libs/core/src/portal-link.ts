import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { assertNotPublishedSecret, ConfigError, resolveKeyring, type DevSecretsGate } from './config';
import { parseKeyring } from './secrets';

/**
 * Buyer portal magic-link tokens. The Admin API (gateway-admin) signs one; the Main Backend
 * (gateway-public), which owns portal sessions, verifies it and claims its `linkId` once. The two
 * gateways share no store, only the key (PORTAL_LINK_SECRET, or derived from SECRETS_KEYRING).
 *
 * Token: `pml1.<payload>.<signature>`; payload is base64url JSON `{o, m, e, x, j}` (organization,
 * data mode, buyer e-mail, expiry in epoch seconds, link id), signature is base64url
 * HMAC-SHA256(key, `pml1.<payload>`).
 */
export interface PortalLinkClaims {
  organizationId: string;
  mode: 'live' | 'test';
  /** Buyer e-mail, trimmed and lower-cased. */
  email: string;
  expiresAt: Date;
  /** Random 24-hex id; its single use is recorded by gateway-public. */
  linkId: string;
}

const PREFIX = 'pml1';
/** Longest token accepted for parsing (a malformed giant is refused before any work). */
export const PORTAL_LINK_MAX_LENGTH = 2048;

/** A published example value that is refused as a portal secret outside development. */
export const DEV_PORTAL_LINK_SECRET = 'paymesh-development-only-portal-link-secret';

function mac(key: string | Buffer, signed: string): Buffer {
  return createHmac('sha256', key).update(signed).digest();
}

/** A new random link id (24 hex). */
export function newPortalLinkId(): string {
  return randomBytes(12).toString('hex');
}

export function signPortalLink(key: string | Buffer, c: PortalLinkClaims): string {
  const payload = Buffer.from(
    JSON.stringify({
      o: c.organizationId,
      m: c.mode,
      e: c.email,
      x: Math.floor(c.expiresAt.getTime() / 1000),
      j: c.linkId,
    }),
  ).toString('base64url');
  const signed = `${PREFIX}.${payload}`;
  return `${signed}.${mac(key, signed).toString('base64url')}`;
}

export type PortalLinkCheck = { ok: true; claims: PortalLinkClaims } | { ok: false; reason: 'malformed' | 'expired' };

/** Verifies signature, shape and expiry; never throws. */
export function verifyPortalLink(key: string | Buffer, token: unknown, now: Date): PortalLinkCheck {
  if (typeof token !== 'string' || token.length > PORTAL_LINK_MAX_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) return { ok: false, reason: 'malformed' };
  const [, payload, signature] = parts as [string, string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature))
    return { ok: false, reason: 'malformed' };
  const expected = mac(key, `${PREFIX}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'malformed' };
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const p = raw as Record<string, unknown>;
  if (
    typeof p !== 'object' ||
    p === null ||
    typeof p.o !== 'string' ||
    !/^[0-9a-f]{24}$/.test(p.o) ||
    (p.m !== 'live' && p.m !== 'test') ||
    typeof p.e !== 'string' ||
    p.e.length === 0 ||
    typeof p.x !== 'number' ||
    !Number.isInteger(p.x) ||
    typeof p.j !== 'string' ||
    !/^[0-9a-f]{24}$/.test(p.j)
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const expiresAt = new Date(p.x * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { organizationId: p.o, mode: p.m, email: p.e, expiresAt, linkId: p.j } };
}

/**
 * A portal key: the configured secret when one is set, otherwise derived (HKDF-SHA256, `purpose` as
 * info) from the active key of SECRETS_KEYRING, which every service of a deployment shares. Keys
 * derived from a rotated keyring change with it: links and codes in flight then fail (they live
 * minutes). The published development values are refused without the development opt-in.
 */
export function resolvePortalKey(
  c: DevSecretsGate & { SECRETS_KEYRING?: string | undefined },
  name: 'PORTAL_LINK_SECRET' | 'PORTAL_OTP_SECRET',
  configured: string | undefined,
): Buffer {
  if (configured) {
    assertNotPublishedSecret(name, configured === DEV_PORTAL_LINK_SECRET, c);
    return Buffer.from(configured, 'utf8');
  }
  const active = [...parseKeyring(resolveKeyring(c)).values()][0];
  if (!active) throw new ConfigError(`${name} must be set, or SECRETS_KEYRING to derive it from`);
  return Buffer.from(hkdfSync('sha256', active, Buffer.alloc(0), Buffer.from(`paymesh ${name}`), 32));
}
