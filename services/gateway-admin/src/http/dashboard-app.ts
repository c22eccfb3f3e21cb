import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { webScope } from '@paymesh/http';

/** Where the dashboard's build lives (web/dist: index.html and content-hashed assets). */
export const DASHBOARD_DIST = join(__dirname, '..', '..', 'web', 'dist');

/** Path prefix of the app's screens; `/` leads there. */
export const DASHBOARD_BASE = '/app/';

export interface DashboardApp {
  /** The HTML shell (Vite's index.html): no inline script or style, the hashed assets linked. */
  shell: string;
  assetsDir: string;
}

/** Reads what `pnpm build` produced; null (and the gateway serves the API only) when it was not built. */
export function loadDashboardApp(dist = DASHBOARD_DIST): DashboardApp | null {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return null;
  return { shell: readFileSync(index, 'utf8'), assetsDir: join(dist, 'assets') };
}

/**
 * Strict policy of the dashboard: scripts, styles, fonts and API calls from this origin only
 * (images also from https URLs: merchant logos), nothing inline, no framing by others, no plugins;
 * frames only of blobs the app made (the pro forma preview).
 */
const DASHBOARD_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    // Merchant logos are https URLs of their own (the site preview shows them, as the hosted page does).
    imgSrc: ["'self'", 'data:', 'https:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    manifestSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    // The draft editor shows its pro forma PDF in a frame, from a blob the signed-in client fetched.
    frameSrc: ['blob:'],
    frameAncestors: ["'none'"],
    objectSrc: ["'none'"],
  },
};

function shell(reply: FastifyReply, app: DashboardApp): FastifyReply {
  return reply.code(200).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(app.shell);
}

/**
 * The dashboard on the Admin API's origin, in a scope of its own (the security headers and the CSP
 * apply to it, not to the JSON API): `GET /` (to `/app/`), `GET /app/*` (the single-page app's
 * shell; the app routes in the browser) and `GET /app/assets/*` (content-hashed, immutable,
 * gzip- and brotli-precompressed).
 */
export async function registerDashboardApp(app: FastifyInstance, dashboard: DashboardApp): Promise<void> {
  await app.register(async (scope) => {
    await webScope(scope, {
      contentSecurityPolicy: DASHBOARD_CSP,
      assetsDir: dashboard.assetsDir,
      assetsPrefix: `${DASHBOARD_BASE}assets/`,
    });
    scope.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect(DASHBOARD_BASE));
    scope.get('/app', { schema: { hide: true } }, (_req, reply) => reply.redirect(DASHBOARD_BASE));
    scope.get('/app/', { schema: { hide: true } }, (_req, reply) => shell(reply, dashboard));
    scope.get('/app/*', { schema: { hide: true } }, (_req, reply) => shell(reply, dashboard));
  });
}
