/**
 * Origin allow-list of buyer-facing requests: a browser origin (`scheme://host[:port]`) is allowed
 * when its host, with the port when it is not the scheme's default, equals one of the site's
 * frontend domains (entries are lower-case hosts, optionally with a port; no wildcards).
 */
export function originAllowed(origin: string, frontendDomains: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.toLowerCase();
  const hostPort = url.port ? `${host}:${url.port}` : host;
  return frontendDomains.some((d) => d.toLowerCase() === hostPort);
}

/**
 * Host name of an http(s) browser origin on its scheme's default port (the only form a custom
 * domain serves), lower-case; undefined for anything else.
 */
export function defaultPortHostOf(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.port) return undefined;
  return url.hostname.toLowerCase();
}

/** The parts of a custom domain and a site the origin rule looks at. */
interface DomainScope {
  organizationId: string;
  mode: string;
  siteId: string | null;
  verified: boolean;
}

/**
 * Whether an organization's custom domain is an allowed origin for a site's checkouts: it must be
 * CNAME-verified, belong to the same organization and data mode, and be either organization-wide
 * (no site) or bound to this site.
 */
export function customDomainAllowsSite(
  domain: DomainScope,
  site: { id: string; organizationId: string; mode: string },
): boolean {
  return (
    domain.verified &&
    domain.organizationId === site.organizationId &&
    domain.mode === site.mode &&
    (domain.siteId === null || domain.siteId === site.id)
  );
}
