import type { FastifyReply, FastifyRequest } from 'fastify';
import { z, type ZodTypeAny } from 'zod';
import { RateLimitedError, toWire } from '@paymesh/core';
import { email as emailSchema, fileAnswer, objectId, row, text, type Row } from '@paymesh/http';
import {
  billingFileRpc,
  DEFAULT_UPCOMING_CHARGES,
  recurringFileRpc,
  MAX_UPCOMING_CHARGES,
  upcomingQuery,
} from '@paymesh/contracts';
import { callEnvelope, type JsonEnvelope, type UnaryMethod } from '@paymesh/grpc';
import {
  chargeOtpRequest,
  exchangeMagicLink,
  issueOtp,
  logout,
  refreshLogin,
  verifyOtp,
  type PortalTokens,
} from '../../portal/auth';
import { subscriptionCount } from '../../portal/buyer';
import { resolvePortalTenant, type TenantHints } from '../../portal/tenant';
import type { PortalDeps, PortalPrincipal } from '../../portal/deps';
import { billingJson, recurringJson, type Clients } from '../../clients';
import { portalRefreshCookie, portalSession, portalSignIn, portalSignOut } from '../guards';
import {
  portalCancelResponse,
  portalDocumentPage,
  portalSessionView,
  portalSubscriptionPage,
  portalTokenResponse,
  portalUpcomingResponse,
} from '../responses';

/** The HTTP-only refresh cookie; sent only to the portal auth routes. */
export const PORTAL_REFRESH_COOKIE = 'paymesh_portal_refresh';
export const PORTAL_AUTH_PATH = '/api/v1/portal/auth';

const email = emailSchema.transform((e) => e.toLowerCase());
/**
 * The portal's scope: one organization and data mode (see docs/adr/0051-buyer-portal-session-scope-sign-in-magic-links-and-what-a.md). The spec's bodies
 * name only the e-mail (and code); without `organizationId` the organization comes from the portal
 * page's address or host (portal/tenant.ts).
 */
const tenant = {
  organizationId: objectId('organizationId')
    .optional()
    .describe(
      'the organization to sign in to; may be left out on the organization’s portal page (/portal/<organizationId>) or on a host only it uses (its verified custom domain or its site’s frontend domain), else 400',
    ),
  testMode: z
    .boolean()
    .optional()
    .describe(
      'the organization’s test data instead of live data; default: the page’s ?mode=test or the host’s mode, else live',
    ),
};
const requestOtpBody = z.object({ email, ...tenant }).strict();
const verifyOtpBody = z
  .object({ email, code: text(20, 1).describe('the 6-digit code from the e-mail'), ...tenant })
  .strict();
const magicLinkBody = z
  .object({ token: text(2048, 1).describe('the token of the magic link (the part after #token=)') })
  .strict();
const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
const docParams = z.object({ id: objectId('id') });
const pdfQuery = z.object({ type: z.enum(['invoice', 'credit-note']).default('invoice') });
const einvoiceQuery = z.object({ format: z.enum(['xrechnung', 'peppol', 'zugferd']) });
const subParams = z.object({ id: objectId('id') });
const proformaParams = z.object({ id: objectId('id'), upcomingId: text(100, 1) });
const cancelBody = z
  .object({ reason: text(5_000).optional().describe('trimmed and cut to 500 characters by the schedule') })
  .strict();

const requestOtpAnswer = z.object({ message: z.string() });

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
/** What a sign-in request says about its organization besides the e-mail (see portal/tenant.ts). */
const hintsOf = (
  req: FastifyRequest,
  body: { organizationId?: string | undefined; testMode?: boolean | undefined },
): TenantHints => ({
  organizationId: body.organizationId,
  testMode: body.testMode,
  origin: header(req, 'origin'),
  referer: header(req, 'referer'),
  host: req.host,
});
const OTP_ANSWER = {
  message: 'If this address may use the customer portal of this organization, a sign-in code is on its way.',
};

const cookieOptions = (deps: PortalDeps) => ({
  httpOnly: true,
  secure: deps.settings.cookieSecure,
  sameSite: 'strict' as const,
  path: PORTAL_AUTH_PATH,
});
/** The session token answered, the refresh secret in the HTTP-only cookie. */
function signedIn(deps: PortalDeps, reply: FastifyReply, t: PortalTokens) {
  reply.header('cache-control', 'no-store');
  reply.setCookie(PORTAL_REFRESH_COOKIE, t.refreshToken, {
    ...cookieOptions(deps),
    expires: new Date(t.refreshExpiresAt),
  });
  return { token: t.token, expiresAt: t.expiresAt };
}

/** A portal file (PDF, e-invoice XML): offered inline under a safe name, never cached. */
function portalFile(bytes: Uint8Array, filename: string, contentType?: string) {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200) || 'document';
  return {
    bytes: Buffer.from(bytes),
    filename: safe,
    headers: { 'cache-control': 'private, no-store' },
    ...(contentType ? { contentType } : {}),
  };
}

const portalRow = row<PortalDeps>();
const signIn = { tag: 'Portal auth', guard: portalSignIn } as const;
const data = { tag: 'Portal', guard: portalSession } as const;
const fileCall = (deps: PortalDeps, target: 'billing' | 'recurring') => ({
  deadlineMs: deps.settings.documentsDeadlineMs,
  target,
});

/**
 * A file of one of the buyer's billing documents (PDF, e-invoice): the buyer is who acts and whose
 * documents they must be; the document deadline applies.
 */
function buyerDocument<S extends ZodTypeAny, Res>(
  deps: PortalDeps,
  p: PortalPrincipal,
  method: (b: Clients['billing']) => UnaryMethod<JsonEnvelope, Res>,
  def: { readonly request: S },
  args: { id: string; body: z.input<S> },
): Promise<Res> {
  const b = deps.clients.billing;
  return callEnvelope(
    b,
    method(b),
    def,
    toWire(p),
    { ...args, actor: `portal:${p.email}`, email: p.email },
    fileCall(deps, 'billing'),
  );
}

/** Buyer portal routes under /api/v1/portal: sign-in (OTP, magic link, refresh, logout) and the buyer's data. */
export const portalRows: Row<PortalDeps>[] = [
  portalRow({
    ...signIn,
    method: 'POST',
    path: '/portal/auth/request-otp',
    operationId: 'requestPortalOtp',
    summary: 'E-mail a 6-digit sign-in code to a buyer of the organization',
    description:
      'The spec’s body is `{email}`: the organization is `organizationId` when sent, else the portal page’s (its address /portal/<organizationId>, or the verified custom domain or site frontend domain it runs on); 400 when none tells it (never guessed from the e-mail). Always answers 202 with the same body, whether or not the address may use the portal; a code is sent only when the deployment and the organization have the portal on and the address has a portal-visible invoice, credit note or subscription there. Each address may ask a few times per window (429 with Retry-After), besides the per-client limit.',
    body: requestOtpBody,
    response: requestOtpAnswer,
    status: 202,
    errors: [400, 429],
    async handler({ deps, req, reply, body }) {
      const t = await resolvePortalTenant(deps, hintsOf(req, body));
      const limited = await chargeOtpRequest(deps, body.email);
      if (limited) {
        reply.header('Retry-After', limited.retryAfterSeconds);
        throw new RateLimitedError(
          `too many sign-in codes asked for this address; retry in ${limited.retryAfterSeconds} s`,
        );
      }
      // After the answer: whether a code goes out must not show in the answer or its timing.
      setImmediate(() => {
        issueOtp(deps, t, body.email, req.id).catch((err: unknown) =>
          deps.logger.error(
            { err, requestId: req.id, organizationId: t.organizationId },
            'portal sign-in code not sent',
          ),
        );
      });
      return OTP_ANSWER;
    },
  }),
  portalRow({
    ...signIn,
    method: 'POST',
    path: '/portal/auth/verify-otp',
    operationId: 'verifyPortalOtp',
    summary: 'Sign in with the e-mailed code: a session token, and the refresh cookie',
    description:
      'The spec’s body is `{email, code}`; the organization is found as for request-otp (400 when it cannot be). A code works once, until it expires, and for at most 5 tries (right or wrong); then a new code is needed. Wrong, expired, used or unknown: 401.',
    body: verifyOtpBody,
    response: portalTokenResponse,
    errors: [400, 401, 429],
    async handler({ deps, req, reply, body }) {
      const t = await resolvePortalTenant(deps, hintsOf(req, body));
      return signedIn(deps, reply, await verifyOtp(deps, t, body.email, body.code.trim()));
    },
  }),
  portalRow({
    ...signIn,
    method: 'POST',
    path: '/portal/auth/magic-link',
    operationId: 'exchangePortalMagicLink',
    summary: 'Sign in with a magic link from the Admin API (single use)',
    description: 'Replayed, expired, malformed or tampered tokens, and links while magic links are off: 401.',
    body: magicLinkBody,
    response: portalTokenResponse,
    errors: [400, 401, 429],
    handler: async ({ deps, reply, body }) => signedIn(deps, reply, await exchangeMagicLink(deps, body.token)),
  }),
  portalRow({
    tag: 'Portal auth',
    guard: portalRefreshCookie,
    method: 'POST',
    path: '/portal/auth/refresh',
    operationId: 'refreshPortalSession',
    summary: 'A fresh session token from the refresh cookie (the cookie is rotated)',
    description:
      'Presenting a refresh cookie that was already rotated ends the whole sign-in (every session token of it): 401.',
    response: portalTokenResponse,
    errors: [401, 429],
    async handler({ deps, req, reply }) {
      try {
        return signedIn(deps, reply, await refreshLogin(deps, req.cookies[PORTAL_REFRESH_COOKIE]));
      } catch (err) {
        reply.clearCookie(PORTAL_REFRESH_COOKIE, cookieOptions(deps));
        throw err;
      }
    },
  }),
  portalRow({
    tag: 'Portal auth',
    guard: portalSignOut,
    method: 'POST',
    path: '/portal/auth/logout',
    operationId: 'logoutPortal',
    summary: 'End the sign-in (refresh cookie and bearer token) and clear the cookie',
    response: null,
    errors: [429],
    async handler({ deps, req, reply }) {
      await logout(deps, req.cookies[PORTAL_REFRESH_COOKIE], req.headers.authorization);
      reply.clearCookie(PORTAL_REFRESH_COOKIE, cookieOptions(deps));
    },
  }),
  // Everything below needs a portal session token.
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/session',
    operationId: 'getPortalSession',
    summary: 'The signed-in buyer',
    response: portalSessionView,
    errors: [401, 429],
    handler: async ({ deps, portal: p }) => ({
      email: p.email,
      hasSubscriptions: (await subscriptionCount(deps, p, p.email)) > 0,
    }),
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/documents',
    operationId: 'listPortalDocuments',
    summary:
      "The buyer's draft and issued invoices and credit notes in the organization, newest first (never pro forma documents as such)",
    query: pageQuery,
    response: portalDocumentPage,
    errors: [400, 401, 429],
    handler: ({ deps, portal: p, query }) =>
      billingJson(deps.clients).json('listPortalDocuments', toWire(p), {
        actor: `portal:${p.email}`,
        email: p.email,
        body: query,
      }),
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/documents/:id/pdf',
    operationId: 'getPortalDocumentPdf',
    summary: "A document's PDF (`type` invoice, the default, or credit-note); a draft gives its pro forma PDF",
    description: "Another buyer's document: 404.",
    params: docParams,
    query: pdfQuery,
    response: fileAnswer,
    file: { contentType: 'application/pdf' },
    errors: [400, 401, 404, 429, 503],
    async handler({ deps, portal: p, params, query }) {
      const res = await buyerDocument(deps, p, (b) => b.getPortalDocumentPdf, billingFileRpc.getPortalDocumentPdf, {
        id: params.id,
        body: { type: query.type },
      });
      return portalFile(res.pdf, res.filename);
    },
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/documents/:id/einvoice',
    operationId: 'getPortalEInvoice',
    summary: "An issued invoice's e-invoice XML (`format` xrechnung, peppol or zugferd); invoices only",
    description:
      "The format must be allowed by the organization's e-invoice settings and its portal settings (403 EINVOICE_DISABLED / EINVOICE_FORMAT_NOT_ALLOWED); a draft: 409 INVOICE_NOT_ISSUED; missing data: 422 EINVOICE_READINESS_FAILED; another buyer's invoice or a credit note: 404.",
    params: docParams,
    query: einvoiceQuery,
    response: fileAnswer,
    file: { contentType: 'application/xml' },
    errors: [400, 401, 403, 404, 409, 422, 429, 503],
    async handler({ deps, portal: p, params, query }) {
      const res = await buyerDocument(deps, p, (b) => b.renderPortalEInvoice, billingFileRpc.renderPortalEInvoice, {
        id: params.id,
        body: { format: query.format },
      });
      return portalFile(res.content, res.fileName, res.contentType || undefined);
    },
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/subscriptions',
    operationId: 'listPortalSubscriptions',
    summary: "The buyer's visible recurring subscriptions, paged (`subscriptions[]`, `total`, `page`, `limit`)",
    query: pageQuery,
    response: portalSubscriptionPage,
    errors: [400, 401, 429, 501],
    handler: ({ deps, portal: p, query }) =>
      recurringJson(deps.clients).json('listPortalSubscriptions', toWire(p), { email: p.email, body: query }),
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/subscriptions/:id/upcoming',
    operationId: 'getPortalUpcomingCharges',
    summary: `A subscription's next charges with tax estimates (\`count\`, default ${DEFAULT_UPCOMING_CHARGES}, at most ${MAX_UPCOMING_CHARGES}; more is 400)`,
    description: "Another buyer's subscription: 404.",
    params: subParams,
    query: upcomingQuery,
    response: portalUpcomingResponse,
    errors: [400, 401, 404, 429, 501],
    handler: ({ deps, portal: p, params, query }) =>
      recurringJson(deps.clients).json('portalUpcoming', toWire(p), {
        id: params.id,
        email: p.email,
        body: { count: query.count },
      }),
  }),
  portalRow({
    ...data,
    method: 'GET',
    path: '/portal/subscriptions/:id/upcoming/:upcomingId/proforma/pdf',
    operationId: 'getPortalUpcomingProformaPdf',
    summary: 'Pro forma PDF preview of the first upcoming charge, when previews are enabled',
    description:
      "Only while the organization's portal settings enable pro forma previews (`proformaPreviewsEnabled`), and only for the charge whose `proformaAvailable` is true (its `proformaPreviewId`): the invoice that charge would make, printed as a pro forma dated on the charge's day; nothing is stored. Previews off, another charge, or another buyer's subscription: 404.",
    params: proformaParams,
    response: fileAnswer,
    file: { contentType: 'application/pdf' },
    errors: [400, 401, 404, 429, 503],
    async handler({ deps, portal: p, params }) {
      const rc = deps.clients.recurring;
      const res = await callEnvelope(
        rc,
        rc.portalUpcomingProformaPdf,
        recurringFileRpc.portalUpcomingProformaPdf,
        toWire(p),
        { id: params.id, email: p.email, body: { upcomingId: params.upcomingId } },
        fileCall(deps, 'recurring'),
      );
      return portalFile(res.pdf, res.filename);
    },
  }),
  portalRow({
    ...data,
    method: 'POST',
    path: '/portal/subscriptions/:id/cancel',
    operationId: 'cancelPortalSubscription',
    summary:
      'Cancel a subscription from its next cycle on (idempotent); the reason is trimmed and cut to 500 characters',
    description: "Another buyer's subscription: 404.",
    params: subParams,
    body: cancelBody,
    response: portalCancelResponse,
    errors: [400, 401, 404, 409, 429, 501],
    handler: ({ deps, portal: p, params, body }) =>
      recurringJson(deps.clients).json('portalCancel', toWire(p), {
        id: params.id,
        email: p.email,
        body: body.reason === undefined ? {} : { reason: body.reason },
      }),
  }),
];
