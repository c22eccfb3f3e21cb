#!/usr/bin/env node
// `pnpm bench:invoicing`: the dashboard's invoicing lists and live tax preview at scale, each figure
// printed beside a reference measured in the same run on the same mesh. A script that prints
// figures, not a test. See docs/performance.md.
//
//   pnpm bench:invoicing [--invoices 100000] [--clients 50000] [--pages 50] [--previews 200]
//                        [--wait-s 600] [--budget-s 300]
//
// Data: one client and two invoices (a draft and an issued one) made through the Admin API, then
// copied in the billing service's tables by bulk INSERT ... SELECT (`--clients` clients, `--invoices`
// invoices spread over the last year, a quarter of them drafts), so every document has the shape the
// product writes.
// - invoices and clients lists, next page: GET /invoices?page=N and GET /clients?page=N from Node,
//   then "Next page" in the app from page 1 on, `--pages` times or until `--budget-s` is spent;
// - live tax preview: POST /invoices/preview-tax with the quantity the merchant types changing on
//   every request, `--previews` times from Node, then in the app's draft editor: from typing a
//   digit in a line's quantity until the preview shows the answer for the form as it is (the
//   editor waits 350 ms of rest before it asks, ADR 0080; that wait is shown apart);
// - reference: GET /organizations/settings/display, an authenticated Admin API read of one cached
//   document, the same way.
// Needs `pnpm build`, the machine's PostgreSQL and NATS, and Chromium (/usr/bin/chromium or
// CHROMIUM_PATH).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchMesh } from './lib/bench-mesh.mjs';
import { signedInDashboard } from './lib/dashboard-browser.mjs';
import { percentile, round } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    invoices: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '50000' },
    pages: { type: 'string', default: '50' },
    previews: { type: 'string', default: '200' },
    'wait-s': { type: 'string', default: '600' },
    'budget-s': { type: 'string', default: '300' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const INVOICES = Number(args.invoices);
const CLIENTS = Number(args.clients);
const PAGES = Number(args.pages);
const PREVIEWS = Number(args.previews);
const WAIT_MS = Number(args['wait-s']) * 1000;
const BUDGET_MS = Number(args['budget-s']) * 1000;
const NEXT_PAGE_TARGET_MS = 300;
const PREVIEW_TARGET_MS = 150;
/** The draft editor's rest before it asks for the tax (ADR 0080). */
const EDITOR_REST_MS = 350;

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const pg = createRequire(join(ROOT, 'libs/store/package.json'))('pg');
const PG_URL = process.env.STORE_URL ?? process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
const stats = (xs) => {
  if (xs.length === 0) return { p50: NaN, p99: NaN };
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};
const fig = (s) => `p50 ${round(s.p50)} ms, p99 ${round(s.p99)} ms`;
const met = (ok) => (ok ? 'met' : 'NOT met');

const ctx = await startBenchMesh({ logLevel: args['log-level'] });
process.once('SIGINT', () => {
  ctx.stop().finally(() => process.exit(130));
});
const { mesh, boot, namespace } = ctx;
const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
let browser;

async function api(method, path, body) {
  const res = await fetch(`${mesh.adminBaseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${boot.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** The draft body the bench and the editor send: one line whose quantity the merchant types. */
const draftItems = (quantity) => [
  { description: 'Consulting', quantity, unitPrice: 11900, amountType: 'gross', itemType: 'digital_service' },
];

/** Copies the template documents `n` times in the billing table with generated ids and fields. */
async function seed() {
  const client = await api('POST', '/clients', {
    name: 'Template Client',
    email: 'template@buyer.example',
    address: { street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', country: 'DE' },
  });
  const body = { siteId: boot.siteId, clientId: client.id, currency: 'EUR', items: draftItems(2) };
  const draft = await api('POST', '/invoices', body);
  const toIssue = await api('POST', '/invoices', body);
  let issued = null;
  try {
    issued = await api('POST', `/invoices/${toIssue.id}/issue`, {});
  } catch (err) {
    console.log(`(the walk-through organization cannot issue: ${String(err.message).slice(0, 160)}; drafts only)`);
  }
  const schema = `"${namespace}_billing"`;
  const now = Date.now();
  const spanStart = now - 365 * 86_400_000;
  const at = (n) =>
    `to_char(to_timestamp((${spanStart} + (g::bigint * ${now - spanStart - 60_000}) / ${n}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const t0 = performance.now();
  const BATCH = 25_000;
  for (let from = 1; from <= CLIENTS; from += BATCH) {
    const to = Math.min(CLIENTS, from + BATCH - 1);
    await pool.query(
      `INSERT INTO ${schema}."clients" (id, version, doc)
       SELECT 'c' || lpad(to_hex(g), 23, '0'), 1, t.doc || jsonb_build_object(
         'id', 'c' || lpad(to_hex(g), 23, '0'), 'name', 'Client ' || g, 'email', 'client' || g || '@buyer.example',
         'emailKey', 'client' || g || '@buyer.example', 'createdAt', ${at(CLIENTS)}, 'updatedAt', ${at(CLIENTS)})
       FROM generate_series(${from}, ${to}) AS g, (SELECT doc FROM ${schema}."clients" WHERE id = $1) t`,
      [client.id],
    );
    process.stdout.write(`\rseeding clients ${to} / ${CLIENTS}`);
  }
  process.stdout.write('\n');
  const templates = issued ? [draft.id, toIssue.id] : [draft.id, draft.id];
  for (let from = 1; from <= INVOICES; from += BATCH) {
    const to = Math.min(INVOICES, from + BATCH - 1);
    // A quarter drafts (no number), the rest issued with a number of their own.
    await pool.query(
      `INSERT INTO ${schema}."invoices" (id, version, doc)
       SELECT 'e' || lpad(to_hex(g), 23, '0'), 1,
         (CASE WHEN g % 4 = 0 THEN d.doc ELSE i.doc END) || jsonb_build_object(
           'id', 'e' || lpad(to_hex(g), 23, '0'),
           'clientId', 'c' || lpad(to_hex(1 + g % ${CLIENTS}), 23, '0'),
           'number', CASE WHEN g % 4 = 0 OR $3 THEN NULL ELSE 'BENCH-' || g END,
           'createdAt', ${at(INVOICES)}, 'updatedAt', ${at(INVOICES)})
       FROM generate_series(${from}, ${to}) AS g,
            (SELECT doc FROM ${schema}."invoices" WHERE id = $1) d,
            (SELECT doc FROM ${schema}."invoices" WHERE id = $2) i`,
      [templates[0], templates[1], !issued],
    );
    process.stdout.write(`\rseeding invoices ${to} / ${INVOICES}`);
  }
  process.stdout.write('\n');
  await pool.query(`VACUUM ANALYZE ${schema}."clients"`);
  await pool.query(`VACUUM ANALYZE ${schema}."invoices"`);
  return { clientId: client.id, seconds: (performance.now() - t0) / 1000 };
}

/** GET `path`&page=N from page 2 on, PAGES times or until the budget is spent. */
async function apiPages(path, failures) {
  const out = [];
  const until = performance.now() + BUDGET_MS;
  for (let p = 2; p <= PAGES + 1 && performance.now() < until; p++) {
    try {
      out.push(await time(() => api('GET', `${path}&page=${p}`)));
    } catch (err) {
      failures.push(`${path} page ${p}: ${String(err.message).slice(0, 160)}`);
      if (failures.length >= 3) break;
    }
  }
  return out;
}

/** "Next page" in the app's list `testId` at `url`, PAGES times or until the budget is spent. */
async function appPages(page, url, testId, failures) {
  const out = [];
  const rows = `[data-testid="${testId}"] tbody tr`;
  try {
    await page.goto(url);
    await page.waitForSelector(rows, { timeout: WAIT_MS });
    const until = performance.now() + BUDGET_MS;
    for (let p = 1; p <= PAGES && performance.now() < until; p++) {
      const before = await page.$eval('.pager span', (e) => e.textContent);
      out.push(
        await time(async () => {
          await page.click('.pager button:last-of-type');
          await page.waitForFunction(
            `(() => { const s = document.querySelector('.pager span')?.textContent; return s && s !== ${JSON.stringify(before)} && document.querySelectorAll(${JSON.stringify(rows)}).length === 20; })()`,
            { polling: 'raf', timeout: WAIT_MS },
          );
        }),
      );
    }
  } catch (err) {
    failures.push(`app ${testId}: ${String(err.message).slice(0, 160)}`);
  }
  return out;
}

try {
  const seeded = await seed();
  const failures = [];
  console.log(
    `data: ${CLIENTS.toLocaleString('en')} clients and ${INVOICES.toLocaleString('en')} invoices (seeded in ${round(seeded.seconds)} s)`,
  );
  console.log('');
  console.log('| figure | value | reference (same run) | target |');
  console.log('|---|---:|---:|---|');

  const ref = [];
  await api('GET', '/organizations/settings/display');
  for (let i = 0; i < Math.max(PAGES, 50); i++)
    ref.push(await time(() => api('GET', '/organizations/settings/display')));
  const refText = `GET /organizations/settings/display: ${fig(stats(ref))}`;

  const ready = `document.querySelector('main h1')`;
  let page;
  ({ browser, page } = await signedInDashboard(boot, { ready, timeoutMs: WAIT_MS }));
  for (const [what, path, testId] of [
    ['invoices', '/invoices?limit=20', 'invoices'],
    ['clients', '/clients?limit=20', 'clients'],
  ]) {
    const viaApi = stats(await apiPages(path, failures));
    const inApp = await appPages(page, `${mesh.dashboardUrl}${what}`, testId, failures);
    const s = stats(inApp);
    console.log(`| ${what} list, next page, API (${PAGES} pages) | ${fig(viaApi)} | ${refText} | — |`);
    console.log(
      `| ${what} list, next page in the app (${inApp.length} pages) | ${fig(s)} | ${refText} | p99 ≤ ${NEXT_PAGE_TARGET_MS} ms: ${met(inApp.length > 0 && s.p99 <= NEXT_PAGE_TARGET_MS)} |`,
    );
  }

  // The tax preview from Node: each request a new quantity, as while typing.
  const previewBody = (q) => ({
    siteId: boot.siteId,
    clientId: seeded.clientId,
    currency: 'EUR',
    items: draftItems(q),
  });
  await api('POST', '/invoices/preview-tax', previewBody(1));
  const previews = [];
  for (let i = 0; i < PREVIEWS; i++)
    previews.push(await time(() => api('POST', '/invoices/preview-tax', previewBody(2 + i))));
  const pv = stats(previews);
  console.log(
    `| live tax preview, API (${PREVIEWS} requests) | ${fig(pv)} | ${refText} | p99 ≤ ${PREVIEW_TARGET_MS} ms: ${met(pv.p99 <= PREVIEW_TARGET_MS)} |`,
  );

  // In the editor: a digit typed in the quantity until the preview answers the form as it is.
  const typed = [];
  try {
    await page.goto(`${mesh.dashboardUrl}invoices/new?clientId=${seeded.clientId}`);
    await page.waitForSelector('#line-0-quantity');
    await page.type('#line-0-description', 'Consulting');
    await page.type('#line-0-unitPrice', '119');
    const box = `document.querySelector('[data-testid="tax-preview"]')`;
    const current = `${box}?.getAttribute('data-current') === 'true'`;
    await page.waitForFunction(current, { polling: 'raf', timeout: WAIT_MS });
    const qty = await page.$('#line-0-quantity');
    if (!qty) throw new Error('no quantity input in the editor');
    for (let i = 0; i < 20; i++) {
      await qty.click({ clickCount: 3 });
      typed.push(
        await time(async () => {
          await qty.type(String(2 + i));
          await page.waitForFunction(`!(${current})`, { polling: 'raf', timeout: WAIT_MS }).catch(() => {});
          await page.waitForFunction(current, { polling: 'raf', timeout: WAIT_MS });
        }),
      );
    }
  } catch (err) {
    failures.push(`editor: ${String(err.message).slice(0, 160)}`);
  }
  const ty = stats(typed.map((ms) => ms - EDITOR_REST_MS));
  console.log(
    `| live tax preview in the editor, after its ${EDITOR_REST_MS} ms rest (${typed.length} edits) | ${fig(ty)} | API preview above | p99 ≤ ${PREVIEW_TARGET_MS} ms: ${met(typed.length > 0 && ty.p99 <= PREVIEW_TARGET_MS)} |`,
  );
  for (const f of failures) console.log(`failed: ${f}`);
} finally {
  await browser?.close();
  await pool.end();
  await ctx.stop();
}
