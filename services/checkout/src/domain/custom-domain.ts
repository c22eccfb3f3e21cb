import { ValidationError } from '@paymesh/core';
import { isFullyQualifiedHostname } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import type { Mode } from './site';

/** A merchant host name that serves the hosted checkout through a CNAME to our checkout host. */
export interface CustomDomainDoc extends StoredDoc {
  organizationId: string;
  mode: Mode;
  /** Lower-case ASCII host name (A-labels), unique across all organizations. */
  hostname: string;
  siteId: string | null;
  /** Whether the last CNAME check found the record pointing at the checkout host. */
  verified: boolean;
  verifiedAt: string | null;
  lastCheckedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Normalizes a host name (trim, lower case, one trailing dot dropped) and checks it is a
 * fully-qualified DNS name: at least two labels, no wildcard, no IP address, no port.
 * Internationalized names must be given in their ASCII (xn--) form.
 */
export function normalizeHostname(raw: string, field = 'hostname'): string {
  const host = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!isFullyQualifiedHostname(host))
    throw new ValidationError(`${field}: "${raw}" is not a fully-qualified host name (e.g. pay.shop.example)`, {
      field,
    });
  return host;
}

/** Whether any CNAME target found in DNS is the expected checkout host (case and final dot ignored). */
export function cnamePointsAt(found: readonly string[], target: string): boolean {
  const want = target.toLowerCase().replace(/\.$/, '');
  return found.some((name) => name.toLowerCase().replace(/\.$/, '') === want);
}

/** The parts of a custom domain the checkout-host rule reads. */
export interface CheckoutHostCandidate {
  hostname: string;
  organizationId: string;
  mode: string;
  siteId: string | null;
  verified: boolean;
  createdAt: string;
}

/**
 * The host a site's hosted checkout pages are served on, when the merchant routed one to us: a
 * CNAME-verified custom domain of the site's organization and mode, bound to this site first, else
 * organization-wide; the oldest of each kind (a stable choice). Domains of other sites and
 * unverified ones never count. Undefined: the default checkout host.
 */
export function checkoutHostFor(
  domains: readonly CheckoutHostCandidate[],
  site: { id: string; organizationId: string; mode: string },
): string | undefined {
  const usable = domains
    .filter(
      (d) =>
        d.verified &&
        d.organizationId === site.organizationId &&
        d.mode === site.mode &&
        (d.siteId === null || d.siteId === site.id),
    )
    .sort(
      (x, y) =>
        Number(y.siteId !== null) - Number(x.siteId !== null) ||
        x.createdAt.localeCompare(y.createdAt) ||
        x.hostname.localeCompare(y.hostname),
    );
  return usable[0]?.hostname;
}

/**
 * The checkout frontend URL moved onto a custom domain: same scheme and path (a gateway mounted
 * under a prefix keeps it), the domain as host on the scheme's default port (the only port a
 * custom domain serves).
 */
export function frontendUrlOnHost(frontendUrl: string, hostname: string): string {
  const url = new URL(frontendUrl);
  url.hostname = hostname;
  url.port = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}
