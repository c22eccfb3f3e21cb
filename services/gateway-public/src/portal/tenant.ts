import { ValidationError } from '@paymesh/core';
import { rpc } from '../clients';
import type { Tenant } from './buyer';
import type { PortalDeps } from './deps';

/** What a sign-in request says about its organization, besides the e-mail. */
export interface TenantHints {
  /** `organizationId` of the body, when sent. */
  organizationId?: string | undefined;
  /** `testMode` of the body, when sent. */
  testMode?: boolean | undefined;
  /** The request's `Origin` and `Referer` headers and its host (`Host`, or the proxy's forwarded host). */
  origin?: string | undefined;
  referer?: string | undefined;
  host?: string | undefined;
}

const ORGANIZATION_PAGE = /\/portal\/([0-9a-f]{24})\/?$/;

export const UNKNOWN_ORGANIZATION =
  'organizationId: cannot tell the organization of this sign-in; send organizationId, or sign in on the organization’s portal page (/portal/<organizationId>) or on a host only it uses (its verified custom domain or its site’s frontend domain)';
export const AMBIGUOUS_ORGANIZATION =
  'organizationId: this host is a frontend domain of several organizations; send organizationId to say which one';

function url(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** `host[:port]` as browsers name it (the port only when it is not the scheme's default), lower case. */
function hostOf(u: URL): string {
  return u.host.toLowerCase();
}

/**
 * The portal page's organization from its address, as the `Referer` of its own calls shows it
 * (`/portal/<organizationId>`, `?mode=test` for test data; the page's referrer policy sends the
 * full address to its own origin only).
 */
export function organizationOfPage(
  referer: string | undefined,
): { organizationId: string; testMode: boolean } | undefined {
  const page = url(referer);
  if (!page) return undefined;
  const organizationId = ORGANIZATION_PAGE.exec(page.pathname)?.[1];
  return organizationId ? { organizationId, testMode: page.searchParams.get('mode') === 'test' } : undefined;
}

/** Hosts to look up, in order: the page's (Origin, else Referer), then the request's; never the main frontend's, which serves everyone. */
export function candidateHosts(
  hints: Pick<TenantHints, 'origin' | 'referer' | 'host'>,
  mainFrontendOrigin: string | undefined,
): string[] {
  const main = url(mainFrontendOrigin);
  const page = url(hints.origin) ?? url(hints.referer);
  const hosts = [page ? hostOf(page) : undefined, hints.host?.toLowerCase()];
  const out: string[] = [];
  for (const h of hosts) if (h && h !== (main ? hostOf(main) : undefined) && !out.includes(h)) out.push(h);
  return out;
}

/**
 * The organization and data mode a portal sign-in (request-otp, verify-otp) is for: the body's
 * `organizationId` when sent; else the portal page's address (`/portal/<organizationId>`); else the
 * host the page runs on: a verified custom domain, or a site's frontend domain that only one
 * organization lists. Never the e-mail: an address known to several organizations must not pick
 * one. When none of these tells, or a host is claimed by several organizations: 400. `testMode`,
 * when sent, picks the mode; otherwise the page's `?mode=test`, or the host's mode (live first).
 */
export async function resolvePortalTenant(deps: PortalDeps, hints: TenantHints): Promise<Tenant> {
  const mode = (test: boolean): Tenant['mode'] => (test ? 'test' : 'live');
  if (hints.organizationId) return { organizationId: hints.organizationId, mode: mode(hints.testMode ?? false) };
  const page = organizationOfPage(hints.referer);
  if (page) return { organizationId: page.organizationId, mode: mode(hints.testMode ?? page.testMode) };
  const cp = deps.clients.checkoutPayments;
  for (const host of candidateHosts(hints, deps.settings.mainFrontendOrigin)) {
    const { tenants } = await rpc(cp, cp.resolveBuyerHost, { host }, deps.clients.deadlineMs);
    const inMode = tenants.filter((t) => hints.testMode === undefined || t.testMode === hints.testMode);
    const chosen = inMode.find((t) => !t.testMode) ?? inMode[0];
    if (!chosen) continue;
    const organizations = new Set(inMode.map((t) => t.organizationId));
    if (organizations.size > 1) throw new ValidationError(AMBIGUOUS_ORGANIZATION, { field: 'organizationId' });
    return { organizationId: chosen.organizationId, mode: mode(chosen.testMode) };
  }
  throw new ValidationError(UNKNOWN_ORGANIZATION, { field: 'organizationId' });
}
