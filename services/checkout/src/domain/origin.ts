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
