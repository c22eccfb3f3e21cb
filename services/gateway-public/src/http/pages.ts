import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { webScope } from '@paymesh/http';
import Negotiator from 'negotiator';

/** Languages of the buyer pages; the first is the fallback. */
export const PAGE_LANGUAGES = ['en', 'de'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

type Messages = Record<string, string>;

/** The built buyer pages: hashed asset names per page and the texts per language. */
export interface WebPages {
  assetsDir: string;
  manifest: Record<string, { js: string; css: string }>;
  messages: Record<PageLanguage, Messages>;
}

/** Folder of the front-end package (sources, message files and its build output). */
export const WEB_DIR = join(__dirname, '..', '..', 'web');

/**
 * Reads what `pnpm build` produced (web/dist/manifest.json, assets) and the message files; throws
 * with the remedy when the pages were not built.
 */
export function loadWebPages(webDir = WEB_DIR): WebPages {
  const manifestFile = join(webDir, 'dist', 'manifest.json');
  if (!existsSync(manifestFile))
    throw new Error(`${manifestFile} is missing: run \`pnpm build\` (it builds the hosted checkout page)`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as WebPages['manifest'];
  const messages = Object.fromEntries(
    PAGE_LANGUAGES.map((lang) => [
      lang,
      JSON.parse(readFileSync(join(webDir, 'messages', `${lang}.json`), 'utf8')) as Messages,
    ]),
  ) as Record<PageLanguage, Messages>;
  return { assetsDir: join(webDir, 'dist', 'assets'), manifest, messages };
}

/** `?lang=` when it names a page language, else the best match of Accept-Language, else English. */
export function pageLanguage(query: unknown, acceptLanguage: string | undefined): PageLanguage {
  const asked =
    typeof query === 'object' && query !== null && 'lang' in query
      ? String((query as { lang: unknown }).lang).toLowerCase()
      : '';
  if ((PAGE_LANGUAGES as readonly string[]).includes(asked)) return asked as PageLanguage;
  const best = new Negotiator({ headers: { 'accept-language': acceptLanguage ?? '' } }).language([...PAGE_LANGUAGES]);
  return (best as PageLanguage | undefined) ?? PAGE_LANGUAGES[0];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/** JSON inside `<script type="application/json">`: no `<` can close the element early. */
const jsonData = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The HTML document of a buyer page: the head (title, the page's hashed assets, its texts for the
 * script in `#messages`) and `body`, the page's own markup.
 */
function pageDocument(pages: WebPages, page: 'checkout' | 'portal', lang: PageLanguage, title: string, body: string) {
  const assets = pages.manifest[page];
  if (!assets) throw new Error(`the ${page} page is missing from the web manifest`);
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="../assets/${esc(assets.css)}">
<script type="module" src="../assets/${esc(assets.js)}"></script>
<script type="application/json" id="messages">${jsonData(pages.messages[lang])}</script>
</head>
<body>
${body}</body>
</html>
`;
}

/**
 * The hosted checkout's HTML shell: every static text and form control server-rendered in the
 * buyer's language, filled and driven by the page script. No inline script or style, no secret:
 * the session ID is the one in the address bar.
 */
export function checkoutShell(pages: WebPages, lang: PageLanguage): string {
  const t = (key: string): string => esc(pages.messages[lang][key] ?? key);
  const input = (name: string, type: string, autocomplete: string, required: boolean) =>
    `<div class="field"><label for="${name}"><span class="label-text">${t(name)}</span>${required ? ` <span class="req">(${t('required')})</span>` : ''}</label>` +
    `<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}"${required ? ' required aria-required="true"' : ''}></div>`;
  return pageDocument(
    pages,
    'checkout',
    lang,
    t('title'),
    `<main id="app" aria-busy="true">
<header class="brand"><img id="logo" alt="" hidden><h1>${t('heading')}</h1></header>
<div id="notice" class="notice" role="alert" tabindex="-1" hidden><p id="notice-text"></p><p id="notice-ref" class="ref" hidden></p></div>
<section id="summary" aria-labelledby="summary-title" hidden>
<h2 id="summary-title">${t('summary')}</h2>
<ul id="items" class="items"></ul>
<dl class="totals">
<dt class="detail">${t('subtotal')}</dt><dd id="net" class="detail"></dd>
<dt id="tax-label" class="detail">${t('tax')}</dt><dd id="tax" class="detail"></dd>
<dt class="grand">${t('total')}</dt><dd id="total" class="grand"></dd>
</dl>
<p id="tax-note" class="note" hidden></p>
<p id="tax-status" class="status" aria-live="polite"></p>
</section>
<form id="pay-form" novalidate hidden>
<fieldset>
<legend>${t('billing')}</legend>
${input('name', 'text', 'name', true)}
${input('email', 'email', 'email', true)}
${input('line1', 'text', 'address-line1', false)}
<div class="row">
${input('postalCode', 'text', 'postal-code', false)}
${input('city', 'text', 'address-level2', false)}
</div>
<div class="field"><label for="country"><span class="label-text">${t('country')}</span> <span class="req">(${t('required')})</span></label>
<select id="country" name="country" autocomplete="country" required aria-required="true"><option value="">${t('chooseCountry')}</option></select></div>
<div id="vat-row" class="field" hidden><label for="vatId"><span class="label-text">${t('vatId')}</span></label>
<input id="vatId" name="vatId" type="text" autocomplete="off" spellcheck="false" aria-describedby="vat-status">
<p id="vat-status" class="status vat-status" aria-live="polite"></p></div>
</fieldset>
<fieldset>
<legend>${t('method')}</legend>
<div id="provider-list"></div>
</fieldset>
<div id="form-error" class="form-error" role="alert" tabindex="-1" hidden><p id="form-error-text"></p><p id="form-error-ref" class="ref" hidden></p></div>
<button id="pay-button" type="submit">${t('payNoAmount')}</button>
</form>
<section id="result" aria-live="polite" hidden>
<h2 id="result-title" tabindex="-1"></h2>
<p id="result-text"></p>
<div id="result-actions" class="actions"></div>
</section>
<noscript><p>${t('noscript')}</p></noscript>
</main>
`,
  );
}

/**
 * The buyer portal's HTML shell (`/portal/<organizationId>` and `/portal/magic-link`): sign-in
 * forms, the documents and subscriptions sections and the cancel dialog, server-rendered in the
 * buyer's language and driven by the page script. The organization is the one in the address bar;
 * the session token never leaves the script's memory.
 */
export function portalShell(pages: WebPages, lang: PageLanguage): string {
  const m = pages.messages[lang];
  const t = (key: string): string => esc(m[`portal.${key}`] ?? m[key] ?? key);
  return pageDocument(
    pages,
    'portal',
    lang,
    t('title'),
    `<header class="top"><h1>${t('heading')}</h1>
<div id="account" class="account" hidden><span id="account-email"></span> <button id="logout" type="button" class="secondary">${t('logout')}</button></div>
</header>
<main id="app" aria-busy="true">
<div id="notice" class="notice" role="alert" tabindex="-1" hidden><p id="notice-text"></p><p id="notice-ref" class="ref" hidden></p></div>
<section id="signin" aria-labelledby="signin-title" hidden>
<h2 id="signin-title">${t('signIn')}</h2>
<form id="email-form" novalidate>
<p>${t('emailIntro')}</p>
<div class="field"><label for="email">${t('email')}</label>
<input id="email" name="email" type="email" autocomplete="email" required aria-required="true"></div>
<button id="email-submit" type="submit">${t('sendCode')}</button>
</form>
<form id="code-form" novalidate hidden>
<p id="code-sent" role="status" tabindex="-1">${t('codeSent')}</p>
<div class="field"><label for="code">${t('code')}</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="20" required aria-required="true"></div>
<div class="actions"><button id="code-submit" type="submit">${t('verify')}</button>
<button id="other-email" type="button" class="secondary">${t('otherEmail')}</button></div>
</form>
</section>
<section id="documents" aria-labelledby="documents-title" hidden>
<h2 id="documents-title" tabindex="-1">${t('documents')}</h2>
<p id="documents-empty" hidden>${t('noDocuments')}</p>
<div class="table-wrap" role="region" aria-labelledby="documents-title" tabindex="0">
<table id="documents-table"><thead><tr>
<th scope="col">${t('number')}</th><th scope="col">${t('issueDate')}</th><th scope="col">${t('status')}</th><th scope="col" class="num">${t('total')}</th><th scope="col" class="num">${t('amountDue')}</th><th scope="col">${t('downloads')}</th>
</tr></thead><tbody id="documents-body"></tbody></table>
</div>
<nav class="pager" aria-label="${t('pages')}"><button id="prev-page" type="button" class="secondary">${t('previous')}</button>
<span id="page-info" aria-live="polite"></span>
<button id="next-page" type="button" class="secondary">${t('next')}</button></nav>
</section>
<section id="subscriptions" aria-labelledby="subscriptions-title" hidden>
<h2 id="subscriptions-title">${t('subscriptions')}</h2>
<p id="subscriptions-empty" hidden>${t('noSubscriptions')}</p>
<ul id="subscription-list" class="subscriptions"></ul>
<p id="subscription-status" class="status" role="status"></p>
</section>
<dialog id="cancel-dialog" aria-labelledby="cancel-title" aria-describedby="cancel-text">
<form id="cancel-form" method="dialog" novalidate>
<h2 id="cancel-title">${t('cancelTitle')}</h2>
<p id="cancel-text"></p>
<div class="field"><label for="cancel-reason">${t('cancelReason')}</label>
<textarea id="cancel-reason" name="reason" rows="3" maxlength="500"></textarea></div>
<div id="cancel-error" class="form-error" role="alert" hidden><p id="cancel-error-text"></p><p id="cancel-error-ref" class="ref" hidden></p></div>
<div class="actions"><button id="cancel-confirm" type="submit" value="confirm">${t('cancelConfirm')}</button>
<button id="cancel-keep" type="button" class="secondary">${t('cancelKeep')}</button></div>
</form>
</dialog>
<noscript><p>${t('noscript')}</p></noscript>
</main>
`,
  );
}

/** Organization IDs (24 hex digits): the tenant the portal page signs in to. */
const ORGANIZATION_ID = /^[0-9a-f]{24}$/;

/** Session IDs as checkout issues them (`cs_` + base64url); anything else cannot be a checkout. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Strict policy of the buyer pages: scripts, styles and requests from this origin only. */
const PAGE_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    // Merchant logos are https URLs of their own.
    imgSrc: ["'self'", 'https:', 'data:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    formAction: ["'none'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
};

/** A page rendered once per language. */
function perLanguage(render: (lang: PageLanguage) => string): Record<PageLanguage, string> {
  return Object.fromEntries(PAGE_LANGUAGES.map((lang) => [lang, render(lang)])) as Record<PageLanguage, string>;
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-cache')
    .header('vary', 'Accept-Language')
    .type('text/html; charset=utf-8')
    .send(body);
}

/**
 * Buyer pages of gateway-public, in a scope of their own (security headers and CSP apply to
 * them, not to the JSON API or its docs): `GET /c/:id` (the hosted checkout; checkout's
 * `paymentUrl` points here), `GET /portal/:organizationId` and `GET /portal/magic-link` (the buyer
 * portal; magic links point at the latter) and `GET /assets/*` (content-hashed, immutable, gzip-precompressed).
 */
export async function registerPages(app: FastifyInstance, pages: WebPages): Promise<void> {
  // One shell per language, rendered once.
  const shells = perLanguage((lang) => checkoutShell(pages, lang));
  const portalShells = perLanguage((lang) => portalShell(pages, lang));
  await app.register(async (scope) => {
    await webScope(scope, { contentSecurityPolicy: PAGE_CSP, assetsDir: pages.assetsDir, assetsPrefix: '/assets/' });
    scope.get<{ Params: { id: string } }>('/c/:id', { schema: { hide: true } }, async (req, reply) => {
      const lang = pageLanguage(req.query, req.headers['accept-language']);
      if (!SESSION_ID.test(req.params.id)) return html(reply, 404, shells[lang]);
      return html(reply, 200, shells[lang]);
    });
    // The portal: magic links land on /portal/magic-link#token=... (PORTAL_PUBLIC_URL of
    // gateway-admin); the sign-in by code happens on /portal/<organizationId>.
    scope.get('/portal/magic-link', { schema: { hide: true } }, async (req, reply) => {
      return html(reply, 200, portalShells[pageLanguage(req.query, req.headers['accept-language'])]);
    });
    scope.get<{ Params: { organizationId: string } }>(
      '/portal/:organizationId',
      { schema: { hide: true } },
      async (req, reply) => {
        const lang = pageLanguage(req.query, req.headers['accept-language']);
        return html(reply, ORGANIZATION_ID.test(req.params.organizationId) ? 200 : 404, portalShells[lang]);
      },
    );
  });
}
