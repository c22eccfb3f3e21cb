import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@paymesh/core';
import { buildPublicServer } from '../src/http/server';
import type { Clients } from '../src/clients';
import { loadWebPages, type WebPages } from '../src/http/pages';
import { testClients } from './kit';

/** The buyer pages as the gateway serves them (the built web/dist of `pnpm build`), in process. */
const logger = createLogger({ service: 'gateway-public-test', level: 'silent' });
let app: FastifyInstance;
let clients: Clients;
let pages: WebPages;

beforeAll(async () => {
  pages = loadWebPages();
  clients = testClients();
  app = await buildPublicServer({ logger, bodyLimit: 1024 * 1024, healthChecks: () => [], clients, pages });
});

afterAll(async () => {
  await app?.close();
  clients?.close();
});

describe('GET /c/:id', () => {
  it('answers the shell in the negotiated language with the page headers', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/c/cs_abc',
      headers: { 'accept-language': 'de-CH, de;q=0.9, en;q=0.8' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.vary).toContain('Accept-Language');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(String(res.headers['content-security-policy'])).toMatch(
      /^default-src 'none';script-src 'self';style-src 'self';/,
    );
    expect(res.body).toContain('<html lang="de">');
    expect(res.body).toContain(`../assets/${pages.manifest.checkout!.js}`);
    expect(
      (await app.inject({ method: 'GET', url: '/c/cs_abc?lang=en', headers: { 'accept-language': 'de' } })).body,
    ).toContain('<html lang="en">');
  });

  it('answers 404 (the same page, which says so) for what cannot be a session ID, never 5xx', async () => {
    for (const id of ['cs%20x', '%3Cscript%3E', 'cs.x']) {
      const res = await app.inject({ method: 'GET', url: `/c/${id}` });
      expect(res.statusCode, id).toBe(404);
      expect(res.body).not.toContain('<script>');
    }
    // Longer than any session ID: the framework's parameter limit answers first.
    expect((await app.inject({ method: 'GET', url: `/c/${'a'.repeat(101)}` })).statusCode).toBe(414);
    const badEncoding = await app.inject({ method: 'GET', url: '/c/%E0%A4%A' });
    expect(badEncoding.statusCode).toBe(400);
  });

  it('leaves the JSON API and its docs without the page headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

describe('GET /assets/*', () => {
  it('serves the hashed files as immutable, gzip or brotli precompressed when accepted', async () => {
    const js = pages.manifest.checkout!.js;
    const plain = await app.inject({ method: 'GET', url: `/assets/${js}` });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(readFileSync(join(pages.assetsDir, js), 'utf8'));
    const gz = await app.inject({ method: 'GET', url: `/assets/${js}`, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);
    const br = await app.inject({ method: 'GET', url: `/assets/${js}`, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(
      (await app.inject({ method: 'GET', url: `/assets/${pages.manifest.checkout!.css}` })).headers['content-type'],
    ).toMatch(/^text\/css/);
  });

  it('serves nothing outside the assets folder', async () => {
    for (const url of [
      '/assets/../manifest.json',
      '/assets/..%2Fmanifest.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/missing-ABC.js',
      '/assets/',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect([400, 403, 404], url).toContain(res.statusCode);
      expect(res.body).not.toContain('"checkout"');
    }
  });
});
