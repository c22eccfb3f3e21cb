import { randomToken, ValidationError } from '@paymesh/core';
import type { SealedValue } from '@paymesh/core';
import type { StoredDoc } from '@paymesh/store';
import type { SiteBranding, SiteCheckoutSettings } from './settings';
import type { Mode } from '@paymesh/core';

export type { Mode } from '@paymesh/core';

export interface SiteDoc extends StoredDoc {
  organizationId: string;
  mode: Mode;
  name: string;
  url: string;
  /** Hosts allowed as Origin/Referer of buyer-facing checkout requests for this site. */
  frontendDomains: string[];
  /** Shown by the hosted checkout; absent on sites created before branding existed. */
  branding?: SiteBranding;
  /** Absent on sites created before the setting existed (read as the defaults). */
  checkoutSettings?: SiteCheckoutSettings;
  webhookSecret: SealedValue;
  webhookSecretHint: string;
  createdAt: string;
  updatedAt: string;
  /** Set when the site was deleted (soft delete); such a site is gone for the Admin API. */
  deletedAt?: string | null;
}

/** Whether the site was deleted. */
export function isDeleted(site: SiteDoc): boolean {
  return typeof site.deletedAt === 'string';
}

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;

/** A new outbound IPN signing secret, `whsec_` followed by 32 random bytes (base64url). */
export function newWebhookSigningSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export function validateSiteName(name: string): string {
  const n = name.trim();
  if (n.length < 1 || n.length > 200) throw new ValidationError('name must be 1 to 200 characters', { field: 'name' });
  return n;
}

export function validateSiteUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('url must be an absolute http(s) URL', { field: 'url' });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ValidationError('url must be an absolute http(s) URL', { field: 'url' });
  }
  return parsed.toString();
}

/** Normalizes frontend domains to lower-case hosts (optionally with port); rejects anything else. */
export function validateFrontendDomains(domains: string[]): string[] {
  if (domains.length > 50) throw new ValidationError('at most 50 frontendDomains', { field: 'frontendDomains' });
  const out = new Set<string>();
  for (const raw of domains) {
    const d = raw.trim().toLowerCase();
    if (!HOST.test(d))
      throw new ValidationError(`frontendDomains: "${raw}" is not a host name`, { field: 'frontendDomains' });
    out.add(d);
  }
  return [...out];
}
