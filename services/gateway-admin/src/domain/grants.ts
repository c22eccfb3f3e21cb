import { ForbiddenError, ValidationError } from '@paymesh/core';
import type { KeyMode } from './api-key';
import { ORGANIZATION_SCOPES, roleAtLeast, SYSTEM_SCOPES, type Role, type Scope } from './scopes';

/** The caller that hands out a key: what it holds bounds what it may grant. */
export interface Grantor {
  role: Role;
  scopes: ReadonlySet<Scope>;
  mode: KeyMode;
}

export interface KeyGrant {
  kind: 'organization' | 'system';
  role: Role;
  scopes: readonly Scope[];
  mode: KeyMode;
}

/**
 * Rules for creating or changing an API key, so a key can never be used to mint a stronger one:
 * scopes must suit the key kind (no `system:*` on organization keys) and be non-empty; the caller
 * must hold every scope it grants and at least the role it grants; a test-mode caller may only
 * issue test keys.
 */
export function checkGrant(grantor: Grantor, grant: KeyGrant): void {
  if (grant.scopes.length === 0) throw new ValidationError('body.scopes: must not be empty', { field: 'scopes' });
  const allowed = new Set<string>(grant.kind === 'system' ? SYSTEM_SCOPES : ORGANIZATION_SCOPES);
  const unsuitable = grant.scopes.filter((s) => !allowed.has(s));
  if (unsuitable.length) {
    throw new ValidationError(`body.scopes: not allowed for ${grant.kind} keys: ${unsuitable.join(', ')}`, {
      field: 'scopes',
    });
  }
  const notHeld = grant.scopes.filter((s) => !grantor.scopes.has(s));
  if (notHeld.length) throw new ForbiddenError(`cannot grant scopes the caller does not hold: ${notHeld.join(', ')}`);
  if (!roleAtLeast(grantor.role, grant.role))
    throw new ForbiddenError(`cannot grant role ${grant.role} above the caller's role ${grantor.role}`);
  if (grantor.mode === 'test' && grant.mode === 'live')
    throw new ForbiddenError('a test-mode caller may only issue test keys');
}
