#!/usr/bin/env node
// `pnpm bench:dashboard-app`: the merchant dashboard in Chromium over the dashboard bench's data set
// (test/bench/lib/dashboard-data.mjs: 1,000,000 transactions by default), each figure printed
// beside a reference measured in the same run on the same mesh. A script that prints figures, not
// a test. See docs/performance.md.
//
//   pnpm bench:dashboard-app [--transactions 1000000] [--days 365] [--loads 20] [--pages 100]
//                            [--wait-s 600] [--budget-s 300]
//
// - first-load JavaScript: the scripts the app's page loads at once (its entry and preloaded
//   chunks), gzip as gateway-admin serves them, and as Chromium received them (resource timing);
// - overview ready: from navigating to /app/ (signed in through the refresh cookie) until the
//   overview shows its figures and chart, `--loads` times with a warm cache and once cold;
//   reference: the API call the overview waits for (GET /dashboard, last_30_days), timed from Node;
// - transactions list, next page: from pressing "Next page" until the list shows the next page,
//   `--pages` times from page 1 on, or fewer when `--budget-s` is spent; reference:
//   GET /transactions?page=N&limit=20 from Node, the same way.
//
// Needs `pnpm build`, the machine's PostgreSQL and NATS, and Chromium (/usr/bin/chromium or
// CHROMIUM_PATH). Signs in as the bootstrap Admin with a passkey of Chromium's virtual authenticator.
import { get as httpGet } from 'node:http';
import { parseArgs } from 'node:util';
import { startBenchMesh } from './lib/bench-mesh.mjs';
import { seedDashboardData } from './lib/dashboard-data.mjs';
import { signedInDashboard } from './lib/dashboard-browser.mjs';
import { percentile, round } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    transactions: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '365' },
    loads: { type: 'string', default: '20' },
    pages: { type: 'string', default: '100' },
    'wait-s': { type: 'string', default: '600' },
    'budget-s': { type: 'string', default: '300' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const N = Number(args.transactions);
const LOADS = Number(args.loads);
const PAGES = Number(args.pages);
const BUDGET_KB = 200;
const OVERVIEW_TARGET_MS = 1500;
const NEXT_PAGE_TARGET_MS = 300;
/** Longest wait for one screen, and the time budget of each list series (pages stop early past it). */
const WAIT_MS = Number(args['wait-s']) * 1000;
const BUDGET_MS = Number(args['budget-s']) * 1000;

/** Bytes of a response body as sent (no decoding), and its content encoding. */
function rawSize(url, headers) {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ bytes, encoding: res.headers['content-encoding'] ?? 'identity' }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
const stats = (xs) => {
  if (xs.length === 0) return { p50: NaN, p99: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] };
};
const kb = (n) => `${round(n / 1024)} KB`;

const ctx = await startBenchMesh({ logLevel: args['log-level'] });
process.once('SIGINT', () => {
  ctx.stop().finally(() => process.exit(130));
});
const { mesh, boot } = ctx;
let close = async () => {};
let browser;

async function api(path) {
  const res = await fetch(`${mesh.adminBaseUrl}${path}`, { headers: { authorization: `Bearer ${boot.apiKey}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status} ${JSON.stringify(body)}`);
  return body;
}

try {
  const data = await seedDashboardData(ctx, { n: N, days: Number(args.days) });
  close = data.close;
  const origin = new URL(mesh.dashboardUrl).origin;

  // First-load JavaScript as served: the scripts the page links (entry and modulepreload).
  const shell = await (await fetch(mesh.dashboardUrl)).text();
  const scripts = [...shell.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  let served = 0;
  for (const s of scripts) served += (await rawSize(`${origin}${s}`, { 'accept-encoding': 'gzip' })).bytes;

  const overviewReady = `document.querySelector('[data-testid^="gross-"]') && document.querySelector('#chart canvas')`;
  let page;
  ({ browser, page } = await signedInDashboard(boot, { ready: overviewReady, timeoutMs: WAIT_MS }));

  // Each row is printed as soon as it is measured (a slow figure does not hide the others).
  console.log(
    `data: ${N.toLocaleString('en')} transactions over ${args.days} days (seeded in ${round(data.seedSeconds)} s, backfill ${round(data.backfillSeconds)} s)`,
  );
  console.log('');
  console.log('| figure | value | reference (same run) | target |');
  console.log('|---|---:|---:|---|');

  // Overview ready: once cold (no cache: the first visit's scripts included), then warm.
  const load = async () => {
    await page.goto(mesh.dashboardUrl, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(overviewReady, { timeout: WAIT_MS, polling: 'raf' });
  };
  await page.setCacheEnabled(false);
  const cold = await time(load);
  const transferred = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => e.name.endsWith('.js'))
      .reduce((n, e) => n + e.encodedBodySize, 0),
  );
  console.log(
    `| first-load JavaScript (${scripts.length} scripts) | ${kb(served)} gzip as served; ${kb(transferred)} as Chromium received it | — | ≤ ${BUDGET_KB} KB: ${served <= BUDGET_KB * 1024 ? 'met' : 'NOT met'} |`,
  );
  await page.setCacheEnabled(true);
  await load();
  const warm = [];
  for (let i = 0; i < LOADS; i++) warm.push(await time(load));
  const zone = (await api('/organizations/settings/invoicing')).timeZone ?? 'UTC';
  const dashboardPath = `/dashboard?period=last_30_days&timezone=${encodeURIComponent(zone)}`;
  await api(dashboardPath);
  const dashRef = [];
  for (let i = 0; i < LOADS; i++) dashRef.push(await time(() => api(dashboardPath)));
  const w = stats(warm);
  const dr = stats(dashRef);
  console.log(
    `| overview ready, warm (${LOADS} loads) | p50 ${round(w.p50)} ms, p99 ${round(w.p99)} ms, max ${round(w.max)} ms | GET /dashboard: p50 ${round(dr.p50)} ms, p99 ${round(dr.p99)} ms | ≤ ${OVERVIEW_TARGET_MS} ms: ${w.max <= OVERVIEW_TARGET_MS ? 'met' : 'NOT met'} |`,
  );
  console.log(
    `| overview ready, cold (no cache) | ${round(cold)} ms | — | ≤ ${OVERVIEW_TARGET_MS} ms: ${cold <= OVERVIEW_TARGET_MS ? 'met' : 'NOT met'} |`,
  );

  // Transactions list: the API's pages first (the reference), then "Next page" in the app, each
  // up to PAGES times or until the time budget is spent.
  const listRef = [];
  const failures = [];
  const refUntil = performance.now() + BUDGET_MS;
  for (let p = 2; p <= PAGES + 1 && performance.now() < refUntil; p++) {
    try {
      listRef.push(await time(() => api(`/transactions?page=${p}&limit=20`)));
    } catch (err) {
      failures.push(`API page ${p}: ${String(err.message).slice(0, 160)}`);
      if (failures.length >= 3) break;
    }
  }
  let firstPage = NaN;
  const next = [];
  try {
    firstPage = await time(async () => {
      await page.goto(`${mesh.dashboardUrl}payments`);
      await page.waitForSelector('[data-testid="transactions"] tbody tr', { timeout: WAIT_MS });
    });
    const appUntil = performance.now() + BUDGET_MS;
    for (let p = 1; p <= PAGES && performance.now() < appUntil; p++) {
      const label = `Page ${p + 1} of`;
      next.push(
        await time(async () => {
          await page.click('.pager button:last-of-type');
          await page.waitForFunction(
            `document.querySelector('.pager span')?.textContent.startsWith(${JSON.stringify(label)}) && document.querySelectorAll('[data-testid="transactions"] tbody tr').length === 20`,
            { polling: 'raf', timeout: WAIT_MS },
          );
        }),
      );
    }
  } catch (err) {
    const shown = await page.evaluate(`document.querySelector('main')?.innerText ?? ''`).catch(() => '');
    failures.push(
      `app: ${String(err.message).slice(0, 120)}; the screen shows: ${shown.replace(/\s+/g, ' ').slice(0, 160)}`,
    );
  }
  const np = stats(next);
  const lr = stats(listRef);
  console.log(`| transactions list, first page | ${round(firstPage)} ms | — | — |`);
  console.log(
    `| transactions list, next page (${next.length} pages) | p50 ${round(np.p50)} ms, p99 ${round(np.p99)} ms | GET /transactions?page=N (${listRef.length} pages): p50 ${round(lr.p50)} ms, p99 ${round(lr.p99)} ms | p99 ≤ ${NEXT_PAGE_TARGET_MS} ms: ${next.length > 0 && np.p99 <= NEXT_PAGE_TARGET_MS ? 'met' : 'NOT met'} |`,
  );
  for (const f of failures) console.log(`failed: ${f}`);
} finally {
  await browser?.close();
  await close();
  await ctx.stop();
}
