import type { FastifyInstance } from 'fastify';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import fastifyStatic from '@fastify/static';

/** What a gateway's pages need of their scope: their CSP and their built assets. */
export interface WebScopeOptions {
  /** The pages' Content-Security-Policy. */
  contentSecurityPolicy: FastifyHelmetOptions['contentSecurityPolicy'];
  /** Folder of the built, content-hashed and precompressed assets. */
  assetsDir: string;
  /** URL prefix the assets are served under, with both slashes (`/assets/`). */
  assetsPrefix: string;
}

/**
 * Turns `scope` (a plugin scope of its own, so that nothing here reaches the JSON API) into one for
 * a gateway's HTML pages: helmet's security headers with the pages' CSP, referrer and resource
 * policy same-origin (provider pages on other origins learn nothing of the page's address; the
 * page's own API calls keep Origin and Referer, which `no-referrer` would turn into `Origin: null`),
 * and the assets served immutable for a year, gzip- and brotli-precompressed, without directory
 * indexes.
 */
export async function webScope(scope: FastifyInstance, opts: WebScopeOptions): Promise<void> {
  await scope.register(helmet, {
    contentSecurityPolicy: opts.contentSecurityPolicy,
    referrerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
  await scope.register(fastifyStatic, {
    root: opts.assetsDir,
    prefix: opts.assetsPrefix,
    decorateReply: false,
    index: false,
    immutable: true,
    maxAge: '365d',
    preCompressed: true,
  });
}
