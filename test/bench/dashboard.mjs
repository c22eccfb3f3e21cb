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
import { parseArgs } from 'node:util';
import { startBenchMesh } from './lib/bench-mesh.mjs';
import { seedDashboardData } from './lib/dashboard-data.mjs';
import { percentile, round } from './lib/stats.mjs';

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

const ctx = await startBenchMesh({ logLevel: args['log-level'] });
// Ctrl-C stops the mesh and drops its namespace too.
process.once('SIGINT', () => {
  ctx.stop().finally(() => process.exit(130));
});
const { mesh, boot } = ctx;

let close = async () => {};

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
  const data = await seedDashboardData(ctx, { n: N, days: DAYS });
  close = data.close;
  const { table, pool, spanStart, now, seedSeconds, backfill, backfillSeconds, buckets } = data;
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
  await close();
  await ctx.stop();
}
