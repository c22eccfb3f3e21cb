import type { CollectionSpec, StoredDoc } from '@paymesh/store';
import { IDEMPOTENCY_COLLECTION } from '@paymesh/http';

/**
 * Buyer portal sessions. Codes and tokens are stored only as digests: one-time codes as an HMAC
 * (a 6-digit code is guessable from a plain hash), session and refresh secrets as SHA-256.
 */
export const PORTAL_OTP_CODES = 'portal_otp_codes';
export const PORTAL_OTP_REQUESTS = 'portal_otp_requests';
export const PORTAL_LOGINS = 'portal_logins';
export const PORTAL_SESSION_TOKENS = 'portal_session_tokens';
export const PORTAL_MAGIC_LINK_CLAIMS = 'portal_magic_link_claims';

/** An e-mailed sign-in code; only the latest one of a buyer and organization counts. */
export interface OtpCodeDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  email: string;
  /** HMAC-SHA256 (PORTAL_OTP_SECRET) over organization, mode, e-mail and code, hex. */
  codeHash: string;
  /** Tries made with this code, right or wrong. */
  attempts: number;
  expiresAt: string;
  usedAt: string | null;
  createdAt: string;
}

/** One code request (known address or not), for the per-address budget; keyed by the address digest. */
export interface OtpRequestDoc extends StoredDoc {
  emailDigest: string;
  createdAt: string;
}

/**
 * A buyer's sign-in (OTP or magic link): the refresh-token family. Revoking it ends every session
 * token issued under it.
 */
export interface LoginDoc extends StoredDoc {
  organizationId: string;
  mode: 'live' | 'test';
  email: string;
  method: 'otp' | 'magic_link';
  /** SHA-256 of the current refresh secret. */
  refreshHash: string;
  /** SHA-256 of refresh secrets already rotated away (the latest 50): presenting one ends the family. */
  rotatedRefreshHashes: string[];
  createdAt: string;
  refreshedAt: string;
  /** Absolute end of the sign-in (refresh cookie lifetime). */
  expiresAt: string;
  revokedAt: string | null;
  revokedReason: string | null;
}

export interface SessionTokenDoc extends StoredDoc {
  /** SHA-256 of the bearer token, hex. */
  tokenHash: string;
  loginId: string;
  expiresAt: string;
  createdAt: string;
}

/** A magic link exchanged: the id is the link's id, so a second exchange cannot insert it again. */
export interface MagicLinkClaimDoc extends StoredDoc {
  organizationId: string;
  loginId: string;
  claimedAt: string;
  expiresAt: string;
}

export const collections: CollectionSpec[] = [
  {
    name: PORTAL_OTP_CODES,
    indexes: [{ name: 'portal_otp_codes_buyer', fields: ['organizationId', 'mode', 'email', 'createdAt'] }],
  },
  { name: PORTAL_OTP_REQUESTS, indexes: [{ name: 'portal_otp_requests_email', fields: ['emailDigest', 'createdAt'] }] },
  { name: PORTAL_LOGINS, indexes: [{ name: 'portal_logins_buyer', fields: ['organizationId', 'mode', 'email'] }] },
  {
    name: PORTAL_SESSION_TOKENS,
    indexes: [
      { name: 'portal_session_tokens_hash', fields: ['tokenHash'], unique: true },
      { name: 'portal_session_tokens_login', fields: ['loginId'] },
    ],
  },
  { name: PORTAL_MAGIC_LINK_CLAIMS },
  // Idempotency-Key records (claims and kept answers; libs/http/src/idempotency).
  IDEMPOTENCY_COLLECTION,
];
