import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { webScope } from './web-scope';

describe('webScope', () => {
  it("gives the scope's pages and assets the security headers and long caching, and leaves the rest of the app alone", async () => {
    const assetsDir = mkdtempSync(join(tmpdir(), 'web-scope-'));
    writeFileSync(join(assetsDir, 'app-1a2b3c.js'), 'console.log(1);');
    const app = Fastify();
    await app.register(async (scope) => {
      await webScope(scope, {
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'self'"], objectSrc: ["'none'"] } },
        assetsDir,
        assetsPrefix: '/assets/',
      });
      scope.get('/page', async (_req, reply) => reply.type('text/html').send('<p>page</p>'));
    });
    app.get('/api/thing', async () => ({ ok: true }));

    const page = await app.inject({ method: 'GET', url: '/page' });
    expect(page.headers['content-security-policy']).toBe("default-src 'self';object-src 'none'");
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.headers['cross-origin-resource-policy']).toBe('same-origin');

    const asset = await app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBeDefined();
    // No directory listing of the assets.
    expect((await app.inject({ method: 'GET', url: '/assets/' })).statusCode).toBe(403);

    const api = await app.inject({ method: 'GET', url: '/api/thing' });
    expect(api.headers['content-security-policy']).toBeUndefined();
    await app.close();
  });
});
