/**
 * When the Admin API may create a portal magic link, and for how long (pure rules).
 * The TTL may only shorten the system default: omitted -> the default; larger than the default ->
 * the default; the default itself never exceeds the system maximum (see docs/adr/0051-buyer-portal-session-scope-sign-in-magic-links-and-what-a.md).
 */
export function magicLinkTtlMinutes(requested: number | undefined, defaultMinutes: number, maxMinutes: number): number {
  const ceiling = Math.min(defaultMinutes, maxMinutes);
  return requested === undefined ? ceiling : Math.min(requested, ceiling);
}

export interface MagicLinkConditions {
  systemPortal: boolean;
  systemMagicLinks: boolean;
  organizationPortal: boolean;
  organizationMagicLinks: boolean;
  /** Portal-visible invoices and credit notes plus recurring subscriptions of the e-mail. */
  visibleItems: number;
}

export type MagicLinkRefusal =
  'system_portal' | 'system_magic_links' | 'organization_portal' | 'organization_magic_links' | 'nothing_visible';

/** The first condition that fails, in the order the spec names them; null when a link may be made. */
export function magicLinkRefusal(c: MagicLinkConditions): MagicLinkRefusal | null {
  if (!c.systemPortal) return 'system_portal';
  if (!c.systemMagicLinks) return 'system_magic_links';
  if (!c.organizationPortal) return 'organization_portal';
  if (!c.organizationMagicLinks) return 'organization_magic_links';
  if (c.visibleItems < 1) return 'nothing_visible';
  return null;
}
