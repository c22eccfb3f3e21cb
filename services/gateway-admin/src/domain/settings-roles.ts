import { roleAtLeast, type Role } from './scopes';

/**
 * Invoicing-settings fields whose change needs the Admin role although the route itself needs
 * only what the spec names (`organization:execute`, Editor): the payout account printed on every
 * invoice. Redirecting it is the classic payment fraud, so only Admins may set or clear it.
 */
export const ADMIN_ONLY_INVOICING_FIELDS = ['bankIBAN'] as const;

/** The Admin-only fields a patch touches (present, `null` included) that `role` may not change. */
export function invoicingFieldsBeyondRole(patch: Readonly<Record<string, unknown>>, role: Role): string[] {
  if (roleAtLeast(role, 'Admin')) return [];
  return ADMIN_ONLY_INVOICING_FIELDS.filter(
    (f) => Object.prototype.hasOwnProperty.call(patch, f) && patch[f] !== undefined,
  );
}
