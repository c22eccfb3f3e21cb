import { SCOPE_FAMILIES } from '@paymesh/contracts';

export { SCOPE_FAMILIES };

export type ScopeFamily = keyof typeof SCOPE_FAMILIES;
export type Scope = {
  [F in ScopeFamily]: `${F}:${(typeof SCOPE_FAMILIES)[F][number]}`;
}[ScopeFamily];

export const ALL_SCOPES: readonly Scope[] = Object.freeze(
  (Object.keys(SCOPE_FAMILIES) as ScopeFamily[]).flatMap((f) => SCOPE_FAMILIES[f].map((a) => `${f}:${a}` as Scope)),
);

/** Scopes an organization key may hold (the `system:*` family is for system keys only). */
export const ORGANIZATION_SCOPES: readonly Scope[] = Object.freeze(ALL_SCOPES.filter((s) => !s.startsWith('system:')));

export const SYSTEM_SCOPES: readonly Scope[] = ALL_SCOPES;

const SCOPE_SET: ReadonlySet<string> = new Set(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

export const ROLES = ['Viewer', 'Editor', 'Admin'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_RANK: Record<Role, number> = { Viewer: 1, Editor: 2, Admin: 3 };

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLE_RANK[have] >= ROLE_RANK[need];
}

/** Read-only scopes: everything a dashboard Viewer holds. */
export const READ_SCOPES: readonly Scope[] = Object.freeze(ORGANIZATION_SCOPES.filter((s) => s.endsWith(':read')));

/**
 * Scopes of a dashboard user with the given membership role. Viewers get the read-only scopes;
 * Editors and Admins get every organization scope, and the route table's minimum role is what
 * separates them (for example Admin-only provider and API-key management).
 */
export function scopesForRole(role: Role): readonly Scope[] {
  return role === 'Viewer' ? READ_SCOPES : ORGANIZATION_SCOPES;
}

/** A non-empty tuple of the values (for schema enums); throws on an empty list. */
export function nonEmpty<T>(values: readonly T[]): [T, ...T[]] {
  const [head, ...tail] = values;
  if (head === undefined) throw new Error('expected at least one value');
  return [head, ...tail];
}
