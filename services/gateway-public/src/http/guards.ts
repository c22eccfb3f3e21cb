/**
 * The Main Backend's callers and how each is known: every row of its tables names one of these
 * guards. Buyers are anonymous: a browser must come from an Origin the checkout allows, which
 * checkout judges from the `browserOrigin` the buyer guard hands the handler; portal buyers hold a
 * portal session; providers sign their deliveries.
 */
import type { Guard } from '@paymesh/http';
import type { Clients } from '../clients';
import { authenticatePortal } from '../portal/auth';
import type { PortalDeps, PortalPrincipal } from '../portal/deps';
import { browserOriginFor } from './origin';

/** What the buyer-facing rows (checkouts, transactions, VAT) depend on. */
export interface PublicRouteOptions {
  clients: Clients;
  /** Origin of the hosted checkout, always allowed (MAIN_FRONTEND_ORIGIN); '' = none. */
  mainFrontendOrigin: string;
}

/** Anyone; the row's handler or the service behind it decides (a transaction's status, VAT checks). */
export const anyone: Guard<unknown, object> = { at: 'handler', security: [], caller: () => ({}) };

/**
 * A buyer's browser or a merchant's server: `Origin` (else `Referer`) read before the input, so an
 * unreadable origin is a 403 whatever the body; checkout matches the origin against the site.
 */
export const buyerOrigin: Guard<PublicRouteOptions, { browserOrigin: string }> = {
  at: 'handler',
  security: [],
  caller: (deps, req) => ({ browserOrigin: browserOriginFor(req.headers, deps.mainFrontendOrigin) }),
};

/** A payment provider: no credentials here, the delivery's signature is verified per provider by payments-webhooks. */
export const providerSignature: Guard<{ clients: Clients }, object> = {
  at: 'handler',
  security: [],
  caller: () => ({}),
};

/** A buyer signing in to the portal: no credentials yet. */
export const portalSignIn: Guard<PortalDeps, object> = { at: 'handler', security: [], caller: () => ({}) };

/** The portal's refresh cookie (HTTP-only, sent only to the portal auth routes); the handler reads it. */
export const portalRefreshCookie: Guard<PortalDeps, object> = {
  at: 'handler',
  security: [{ portalRefreshCookie: [] }],
  caller: () => ({}),
};

/** Sign-out: the refresh cookie, or nothing (the route only clears the cookie then). */
export const portalSignOut: Guard<PortalDeps, object> = {
  at: 'handler',
  security: [{ portalRefreshCookie: [] }, {}],
  caller: () => ({}),
};

/**
 * A signed-in buyer: the portal session's bearer token, checked before the body is read (401
 * unless current and the portal on). The audit trail names the buyer (the sign-in and its e-mail).
 */
export const portalSession: Guard<PortalDeps, { portal: PortalPrincipal }> = {
  at: 'request',
  security: [{ portalSession: [] }],
  async caller(deps, req) {
    const portal = await authenticatePortal(deps, req.headers.authorization);
    if (req.requestContext)
      req.requestContext.actor = { type: 'portal_session', id: portal.loginId, name: portal.email };
    return { portal };
  },
  describe: () => 'Needs `Authorization: Bearer <portal session token>` (from verify-otp, magic-link or refresh).',
};
