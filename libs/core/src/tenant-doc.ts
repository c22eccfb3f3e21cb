import type { TenantKey } from './tenancy';

/**
 * Whether a stored document is the tenant's: a missing one, another organization's or the other
 * data mode's is not (and callers answer alike for all three, so a foreign document stays unseen).
 */
export function ofTenant<T extends { organizationId: string; mode: string }>(
  doc: T | null | undefined,
  key: TenantKey,
): doc is T {
  return !!doc && doc.organizationId === key.organizationId && doc.mode === key.mode;
}
