#!/usr/bin/env node
// `pnpm bench:dashboard`: latency of GET /api/v1/dashboard over 1,000,000 transactions, beside a
// reference measured in the same run on the same mesh: GET /api/v1/sites/:id (the same API key
// authentication, the same gateway -> checkout gRPC hop, one document read). A script that prints
// figures, not a test. See docs/performance.md.
//
//   pnpm bench:dashboard [--transactions 1000000] [--runs 300] [--days 365] [--log-level warn]
//
// Needs `pnpm build`, the machine's PostgreSQL and NATS. Starts the whole mesh in a throw-away
// namespace, bootstraps a merchant, and seeds the checkout service's transactions table with bulk
// INSERT ... SELECT statements (documents built by PostgreSQL: the merchant's site and two more,
// three providers, EUR/USD/GBP, every status, refunds and lost disputes, spread evenly over the
// last `--days` days). The seeded rows carry no aggregates; the product's own backfill
// (services/checkout dist/app/dashboard-backfill.js, what the checkout service runs on start-up)
// then brings them into the dashboard buckets, timed separately. As a check, the dashboard's gross
// volume over the whole seeded span is printed beside a plain SQL sum over the table.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchMesh } from './lib/bench-mesh.mjs';
import { percentile, round } from './lib/stats.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const req = createRequire(join(ROOT, 'services/checkout/package.json'));
const { createStore } = req('@paymesh/store');
const { createLogger, systemClock } = req('@paymesh/core');
const { Committer } = req('@paymesh/bus');
const { TRANSACTIONS } = req('./dist/store/collections.js');
const { runBackfill } = req('./dist/app/dashboard-backfill.js');

const { values: args } = parseArgs({
  options: {
    transactions: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '300' },
    days: { type: 'string', default: '365' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const N = Number(args.transactions);
const RUNS = Number(args.runs);
const DAYS = Number(args.days);
const URL_ = process.env.STORE_URL ?? process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const ctx = await startBenchMesh({ logLevel: args['log-level'] });
// Ctrl-C stops the mesh and drops its namespace too.
process.once('SIGINT', () => {
  ctx.stop().finally(() => process.exit(130));
});
const { mesh, boot, providerId, namespace } = ctx;
const database = `${namespace}_checkout`;
const table = `"${database}"."${TRANSACTIONS}"`;
const store = await createStore({ url: URL_, database });
const pg = createRequire(join(ROOT, 'libs/store/package.json'))('pg');
const pool = new pg.Pool({ connectionString: URL_, max: 1 });

const now = Date.now();
const spanStart = now - DAYS * 86_400_000;
const sites = [boot.siteId, 'b'.repeat(24), 'c'.repeat(24)];
const providers = [
  ['provider_a', providerId],
  ['provider_b', 'd'.repeat(24)],
  ['provider_d', 'e'.repeat(24)],
];

// Status by g % 100: 0-69 completed, 70-79 failed, 80-87 pending, 88-92 canceled, 93-95 refunded
// (status 3, refunded in full), 96-97 disputed and lost, 98-99 completed with a partial refund.
const SEED_SQL = (from, to) => `
  INSERT INTO ${table} (id, version, doc)
  SELECT lpad(to_hex(g), 24, '0'), 1, jsonb_build_object(
    'organizationId', '${boot.organizationId}', 'mode', 'live',
    'siteId', (ARRAY['${sites.join("','")}'])[1 + g % 3],
    'checkoutId', NULL, 'sessionPublicId', NULL,
    'status', st, 'subState', NULL, 'statusSequence', 2,
    'statusHistory', jsonb_build_array(jsonb_build_object('from', NULL, 'to', 0, 'subState', NULL, 'trigger', 'create', 'at', ts, 'providerEventId', NULL, 'requestId', NULL, 'reason', NULL)),
    'processedProviderEventIds', '[]'::jsonb,
    'amount', amount, 'currency', cur,
    'email', 'buyer' || (g % 5000) || '@example.com', 'externalReference', 'order-' || g, 'invoiceNumber', NULL, 'clientId', NULL,
    'returnUrl', NULL, 'cancelUrl', NULL, 'ipnUrl', NULL,
    'providerId', (ARRAY['${providers.map((p) => p[1]).join("','")}'])[1 + (g / 3) % 3],
    'providerType', (ARRAY['${providers.map((p) => p[0]).join("','")}'])[1 + (g / 3) % 3],
    'providerPaymentId', 'pi_' || g, 'providerPayment', jsonb_build_object('state', 'created', 'error', NULL, 'redirectUrl', NULL),
    'billingAddress', NULL, 'metadata', '{}'::jsonb, 'notes', NULL, 'manual', false, 'manualReason', NULL,
    'openCheckoutId', NULL, 'deletedAt', NULL,
    'refunds', CASE WHEN m BETWEEN 93 AND 95 THEN jsonb_build_array(jsonb_build_object('id', 're_' || g, 'amount', amount, 'currency', cur, 'at', ts, 'providerEventId', 'evr_' || g))
                    WHEN m >= 98 THEN jsonb_build_array(jsonb_build_object('id', 're_' || g, 'amount', amount / 4, 'currency', cur, 'at', ts, 'providerEventId', 'evr_' || g))
                    ELSE '[]'::jsonb END,
    'chargebacks', CASE WHEN m BETWEEN 96 AND 97 THEN jsonb_build_array(jsonb_build_object('id', 'dp_' || g, 'status', 'lost', 'amount', amount, 'currency', cur,
                    'reason', 'fraudulent', 'at', ts, 'updatedAt', ts, 'resolvedAt', ts, 'decidedBy', 'provider', 'decisionReason', NULL))
                    ELSE '[]'::jsonb END,
    'createdAt', ts, 'updatedAt', ts)
  FROM (SELECT g, g % 100 AS m,
               CASE WHEN g % 100 < 70 THEN 1 WHEN g % 100 < 80 THEN 2 WHEN g % 100 < 88 THEN 0 WHEN g % 100 < 93 THEN -2
                    WHEN g % 100 < 96 THEN 3 WHEN g % 100 < 98 THEN 4 ELSE 1 END AS st,
               500 + (g::bigint * 7919) % 20000 AS amount,
               CASE WHEN g % 20 < 16 THEN 'EUR' WHEN g % 20 < 19 THEN 'USD' ELSE 'GBP' END AS cur,
               to_char(to_timestamp((${spanStart} + (g::bigint * ${now - spanStart - 60_000}) / ${N}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts
        FROM generate_series(${from}, ${to}) AS g) x`;

const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

async function get(path) {
  const res = await fetch(`${mesh.adminBaseUrl}${path}`, { headers: { authorization: `Bearer ${boot.apiKey}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status} ${JSON.stringify(body)}`);
  return body;
}

try {
  // The checkout service created its collections (and indexes) at start-up.
  const seedStart = performance.now();
  const BATCH = 50_000;
  for (let from = 1; from <= N; from += BATCH) {
    await pool.query(SEED_SQL(from, Math.min(N, from + BATCH - 1)));
    process.stdout.write(`\rseeding ${Math.min(N, from + BATCH - 1)} / ${N}`);
  }
  await pool.query(`VACUUM ANALYZE ${table}`);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  process.stdout.write('\n');

  const deps = {
    store,
    outbox: new Committer({ store }),
    clock: systemClock,
    logger: createLogger({ service: 'bench', level: 'silent' }),
  };
  const backfillStart = performance.now();
  let shown = 0;
  const backfill = await runBackfill(deps, {
    force: true,
    batch: 1000,
    shouldStop: () => {
      const done = Math.round((performance.now() - backfillStart) / 1000);
      if (done >= shown + 5) {
        shown = done;
        process.stdout.write(`\rbackfill running ${done} s`);
      }
      return false;
    },
  });
  const backfillSeconds = (performance.now() - backfillStart) / 1000;
  process.stdout.write('\n');
  const buckets = (await pool.query(`SELECT count(*) AS n FROM "${database}"."dashboard_buckets"`)).rows[0].n;

  const firstDay = new Date(spanStart).toISOString().slice(0, 10);
  const today = new Date(now).toISOString().slice(0, 10);
  const cases = [
    ['last_30_days, UTC, all sites and currencies', '/dashboard?period=last_30_days'],
    [
      'this_month, Asia/Kolkata, one site, EUR',
      `/dashboard?period=this_month&timezone=Asia/Kolkata&siteId=${boot.siteId}&currency=EUR`,
    ],
    [
      `whole span (${DAYS + 1} days), Europe/Berlin`,
      `/dashboard?startDate=${firstDay}&endDate=${today}&timezone=Europe/Berlin&recentLimit=20`,
    ],
  ];
  const reference = `/sites/${boot.siteId}`;

  // Check: the whole span's gross volume per currency against a SQL sum over the table.
  const whole = await get(`/dashboard?startDate=${firstDay}&endDate=${today}&timezone=UTC`);
  const sql = await pool.query(
    `SELECT doc->>'currency' AS c, sum((doc->>'amount')::bigint) AS gross, count(*) AS n FROM ${table}
     WHERE (doc->>'status')::int IN (1, 3, 4) GROUP BY 1 ORDER BY 1`,
  );

  for (let i = 0; i < 10; i++) {
    for (const [, path] of cases) await get(path);
    await get(reference);
  }
  const results = cases.map(() => []);
  const ref = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [k, [, path]] of cases.entries()) results[k].push(await time(() => get(path)));
    ref.push(await time(() => get(reference)));
  }
  for (const r of [...results, ref]) r.sort((a, b) => a - b);
  const refP99 = percentile(ref, 99);

  console.log(
    `transactions: ${N.toLocaleString('en')} seeded in ${round(seedSeconds)} s (bulk SQL, indexes in place, then VACUUM ANALYZE), over ${DAYS} days`,
  );
  console.log(
    `aggregates: the product's backfill brought ${backfill.updated.toLocaleString('en')} of ${backfill.scanned.toLocaleString('en')} transactions in, in ${round(backfillSeconds)} s (${round(backfill.scanned / backfillSeconds, 0)} transactions/s); ${Number(buckets).toLocaleString('en')} bucket documents`,
  );
  console.log(
    `check, gross volume over the whole span: dashboard ${whole.currencies.map((c) => `${c.currency} ${c.grossVolume}`).join(', ')}; SQL ${sql.rows.map((r) => `${r.c} ${r.gross}`).join(', ')}`,
  );
  console.log('');
  console.log('| GET | p50 ms | p99 ms | p99 / reference p99 |');
  console.log('|---|---:|---:|---:|');
  for (const [k, [name]] of cases.entries()) {
    console.log(
      `| /dashboard: ${name} (${RUNS} calls) | ${round(percentile(results[k], 50))} | ${round(percentile(results[k], 99))} | ${round(percentile(results[k], 99) / refP99, 2)} |`,
    );
  }
  console.log(`| reference: /sites/:id (${RUNS} calls) | ${round(percentile(ref, 50))} | ${round(refP99)} | 1 |`);
  console.log('');
  const worst = Math.max(...results.map((r) => percentile(r, 99)));
  console.log(`target: p99 under 50 ms: ${worst < 50 ? 'met' : 'NOT met'} (worst case ${round(worst)} ms)`);
} finally {
  await pool.end();
  await store.close();
  await ctx.stop();
}
