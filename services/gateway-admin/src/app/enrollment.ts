import { randomToken, sha256Hex } from '@paymesh/core';
import type { UserDoc } from '../store/collections';
import type { AdminDeps } from './deps';

/** A one-time token that lets a new user register a first WebAuthn credential (only its hash is stored). */
export function newEnrollment(deps: AdminDeps): { token: string; enrollment: NonNullable<UserDoc['enrollment']> } {
  const token = randomToken(32);
  const expiresAt = new Date(deps.clock.now().getTime() + deps.auth.enrollmentTtlSeconds * 1000).toISOString();
  return { token, enrollment: { tokenHash: sha256Hex(token), expiresAt } };
}
