#!/usr/bin/env node
// `pnpm bench:hosted-page`: the hosted checkout page's first load in Chromium with the mesh
// running: JavaScript bytes (gzip, as served to a browser that asks for gzip, and what Chromium
// actually received), and the render timing from Chromium's performance entries (first
// contentful paint, load, and "ready": the checkout view fetched and the form shown), beside a
// reference measured in the same run: an empty static HTML page served by a bare Node HTTP
// server. Every load is a cold one (a new browser context: no cache). See docs/performance.md.
//
//   pnpm bench:hosted-page [--loads 15] [--log-level warn] [--out file]
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/references.mjs';
import { startBenchMesh, limitedLog } from './lib/bench-mesh.mjs';
import { median } from './lib/stats.mjs';

const require = createRequire(join(ROOT, 'package.json'));
const puppeteer = require('puppeteer-core');

const { values: args } = parseArgs({
  options: {
    loads: { type: 'string', default: '15' },
    'log-level': { type: 'string', default: 'warn' },
    out: { type: 'string' },
  },
});
const LOADS = Math.max(3, Number(args.loads));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const log = (msg) => console.log(`[bench:hosted-page] ${msg}`);
const meshErrors = limitedLog('[mesh error]');

const EMPTY_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reference</title></head><body><main><h1>Reference</h1></main></body></html>';

/** The reference: an empty static page from a bare Node HTTP server. */
function startReference() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(EMPTY_PAGE);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

async function call(method, url, { token, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * One cold load of `url` in a fresh context; `ready` is a CSS selector that marks the page usable
 * (the reference: its heading). Answers Chromium's figures for it.
 */
async function loadOnce(browser, url, ready, readyMark) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: 1024, height: 800 });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector(ready, { visible: true, timeout: 30_000 });
    if (readyMark)
      await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, { timeout: 30_000 }, readyMark);
    return await page.evaluate((m) => {
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const mark = m ? performance.getEntriesByName(m)[0] : undefined;
      const scripts = performance
        .getEntriesByType('resource')
        .filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'));
      return {
        responseEnd: nav.responseEnd,
        domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        fcp: fcp ? fcp.startTime : null,
        ready: mark ? mark.startTime : nav.domContentLoadedEventEnd,
        jsTransferBytes: scripts.reduce((a, r) => a + r.transferSize, 0),
        jsEncodedBytes: scripts.reduce((a, r) => a + r.encodedBodySize, 0),
        jsDecodedBytes: scripts.reduce((a, r) => a + r.decodedBodySize, 0),
        scripts: scripts.map((r) => r.name),
        requests: performance.getEntriesByType('resource').length + 1,
      };
    }, readyMark);
  } finally {
    await context.close();
  }
}

function summary(loads) {
  const pick = (k) => median(loads.map((l) => l[k]).filter((v) => v !== null));
  return {
    fcp: pick('fcp'),
    domContentLoaded: pick('domContentLoaded'),
    load: pick('load'),
    ready: pick('ready'),
    requests: loads[0].requests,
  };
}

async function main() {
  const os = await import('node:os');
  const result = {
    startedAt: new Date().toISOString(),
    loads: LOADS,
    host: { cpus: os.cpus().length, node: process.version, loadAvgAtStart: os.loadavg() },
  };
  const reference = await startReference();
  const profile = await mkdtemp(join(tmpdir(), 'paymesh-bench-chromium-'));
  let ctx;
  let browser;
  try {
    log('starting the mesh');
    ctx = await startBenchMesh({ logLevel: args['log-level'], onError: meshErrors });
    const { mesh, boot } = ctx;
    await call('PUT', `${mesh.adminBaseUrl}/organizations/settings/tax`, {
      token: boot.apiKey,
      body: { homeCountry: 'DE', ossEnabled: true },
    });
    const checkout = await call('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
      token: boot.apiKey,
      body: {
        amount: 12500,
        currency: 'EUR',
        externalReference: 'bench-hosted-page',
        items: [
          { name: 'Pro plan', quantity: 2, unitPrice: 5000, itemType: 'digital_service' },
          { name: 'Setup', quantity: 1, unitPrice: 2500, itemType: 'service' },
        ],
      },
    });
    const pageUrl = checkout.paymentUrl;
    log(`page ${pageUrl}`);

    // JavaScript of the first load, as a browser asking for gzip gets it (the manifest's hashed files).
    const html = await (await fetch(pageUrl)).text();
    const scriptUrls = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => new URL(m[1], pageUrl).href);
    let gzipBytes = 0;
    let rawBytes = 0;
    for (const url of scriptUrls) {
      const res = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
      if (res.headers.get('content-encoding') !== 'gzip') throw new Error(`${url} is not served gzip-compressed`);
      // fetch decodes the body; the compressed size is what the server sent (content-length).
      gzipBytes += Number(res.headers.get('content-length'));
      rawBytes += (await res.arrayBuffer()).byteLength;
    }
    result.javascript = { files: scriptUrls.length, gzipBytes, rawBytes, htmlBytes: Buffer.byteLength(html) };

    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
        `--user-data-dir=${profile}`,
      ],
    });
    // Warm-up (Chromium's own start-up, the services' first requests), not counted.
    await loadOnce(browser, reference.url, 'h1');
    await loadOnce(browser, pageUrl, '#pay-form', 'paymesh:checkout-ready');
    const refLoads = [];
    const pageLoads = [];
    for (let i = 0; i < LOADS; i++) {
      refLoads.push(await loadOnce(browser, reference.url, 'h1'));
      pageLoads.push(await loadOnce(browser, pageUrl, '#pay-form', 'paymesh:checkout-ready'));
    }
    result.reference = summary(refLoads);
    result.checkoutPage = {
      ...summary(pageLoads),
      jsTransferBytes: pageLoads[0].jsTransferBytes,
      jsEncodedBytes: pageLoads[0].jsEncodedBytes,
      jsDecodedBytes: pageLoads[0].jsDecodedBytes,
    };
    result.ratios = {
      fcp: result.checkoutPage.fcp / result.reference.fcp,
      load: result.checkoutPage.load / result.reference.load,
      readyVsReferenceLoad: result.checkoutPage.ready / result.reference.load,
    };
    // The portal page's first load (sign-in form ready: the page has tried the refresh cookie).
    await call('PUT', `${mesh.adminBaseUrl}/organizations/settings/portal`, {
      token: boot.apiKey,
      body: { enabled: true },
    });
    const portalUrl = `${mesh.publicRootUrl}/portal/${boot.organizationId}`;
    log(`portal ${portalUrl}`);
    await loadOnce(browser, portalUrl, '#email-form', 'paymesh:portal-ready');
    const portalRefLoads = [];
    const portalLoads = [];
    for (let i = 0; i < LOADS; i++) {
      portalRefLoads.push(await loadOnce(browser, reference.url, 'h1'));
      portalLoads.push(await loadOnce(browser, portalUrl, '#email-form', 'paymesh:portal-ready'));
    }
    result.portalReference = summary(portalRefLoads);
    result.portalPage = {
      ...summary(portalLoads),
      jsEncodedBytes: portalLoads[0].jsEncodedBytes,
      jsDecodedBytes: portalLoads[0].jsDecodedBytes,
    };
    result.portalRatios = {
      fcp: result.portalPage.fcp / result.portalReference.fcp,
      load: result.portalPage.load / result.portalReference.load,
      readyVsReferenceLoad: result.portalPage.ready / result.portalReference.load,
    };
    result.meshErrorLines = meshErrors.count;
  } finally {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
    await ctx?.stop();
    await reference.close();
  }
  result.host.loadAvgAtEnd = os.loadavg();
  const ms = (n) => `${n.toFixed(1)} ms`.padStart(9);
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const r = result.reference;
  const c = result.checkoutPage;
  console.log(`\nhosted checkout page, first load, ${LOADS} cold loads each, alternating, medians`);
  console.log(
    `  JavaScript: ${result.javascript.files} file(s), ${kb(result.javascript.gzipBytes)} gzip (${kb(result.javascript.rawBytes)} uncompressed); Chromium received ${kb(c.jsEncodedBytes)} (brotli)`,
  );
  console.log(`                         FCP       DOMContentLoaded  load      ready     requests`);
  console.log(
    `  empty static page   ${ms(r.fcp)} ${ms(r.domContentLoaded)} ${ms(r.load)} ${ms(r.ready)}   ${r.requests}`,
  );
  console.log(
    `  hosted checkout     ${ms(c.fcp)} ${ms(c.domContentLoaded)} ${ms(c.load)} ${ms(c.ready)}   ${c.requests}`,
  );
  console.log(
    `  ratios checkout / reference: FCP ${result.ratios.fcp.toFixed(2)}, load ${result.ratios.load.toFixed(2)}; checkout ready / reference load ${result.ratios.readyVsReferenceLoad.toFixed(2)}`,
  );
  const pr = result.portalReference;
  const p = result.portalPage;
  console.log(
    `\nbuyer portal page (sign-in form), first load, ${LOADS} cold loads each, alternating, medians; Chromium received ${kb(p.jsEncodedBytes)} of JavaScript`,
  );
  console.log(
    `  empty static page   ${ms(pr.fcp)} ${ms(pr.domContentLoaded)} ${ms(pr.load)} ${ms(pr.ready)}   ${pr.requests}`,
  );
  console.log(
    `  buyer portal        ${ms(p.fcp)} ${ms(p.domContentLoaded)} ${ms(p.load)} ${ms(p.ready)}   ${p.requests}`,
  );
  console.log(
    `  ratios portal / reference: FCP ${result.portalRatios.fcp.toFixed(2)}, load ${result.portalRatios.load.toFixed(2)}; portal ready / reference load ${result.portalRatios.readyVsReferenceLoad.toFixed(2)}`,
  );
  console.log(`  mesh error lines ${result.meshErrorLines}`);
  const out = args.out ?? join(ROOT, '.run', 'bench', `hosted-page-${result.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresults written to ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
