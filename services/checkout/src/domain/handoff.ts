import { randomToken, sha256Hex } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import type { BillingAddress } from './billing-address';

/** A handoff of the buyer's choices between checkout frontends; the token is stored only hashed. */
export interface HandoffDoc extends StoredDoc {
  /** SHA-256 of the token (unique). */
  tokenHash: string;
  checkoutId: string;
  sessionPublicId: string;
  providerId: string;
  billingAddress: BillingAddress | null;
  createdAt: string;
  expiresAt: string;
}

/** Opaque single-use handoff token: `ho_` + 43 random base64url characters (256 bits). */
export function newHandoffToken(): string {
  return `ho_${randomToken(32)}`;
}

export function hashHandoffToken(token: string): string {
  return sha256Hex(token);
}
