#!/usr/bin/env node
// `pnpm bench:tax-reports`: latency of the by-country tax report over a ledger of 1,000,000
// entries, beside a reference measured in the same run (a script that prints figures, not a
// test). See docs/performance.md.
//
//   pnpm bench:tax-reports [--entries 1000000] [--runs 40] [--keep]
//
// Needs `pnpm build` and the machine's PostgreSQL. Seeds a schema of its own with one
// organization's ledger: entries spread evenly over 2025-2026 (eight quarters), 1-3 lines each,
// buyers in 12 countries, EUR and USD, one in ten a refund, invoice payments among the
// transactions. Then runs the report use case (the tax service's code on the store, without gRPC)
// for one quarter in Europe/Berlin over both sources, and, as the reference, one plain SQL
// statement that reads the same quarter's rows through the same index and sums their totals
// (no unwinding of lines, one slice instead of four): the floor of any report on this table.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile, round } from './lib/stats.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const req = createRequire(join(ROOT, 'services/tax/package.json'));
const { createStore, dropStoreDatabase } = req('@paymesh/store');
const { createLogger, ManualClock } = req('@paymesh/core');
const { collections, TAX_RECORDS } = req('./dist/store/collections.js');
const { taxReport } = req('./dist/app/tax-report.js');

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
  },
});
const ENTRIES = Number(args.entries);
const RUNS = Number(args.runs);
const URL_ = process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `bench_reports_${randomBytes(4).toString('hex')}`;
const ORG = 'f'.repeat(24);

const store = await createStore({ url: URL_, database });
const deps = {
  store,
  clock: new ManualClock('2027-01-15T00:00:00.000Z'),
  logger: createLogger({ service: 'bench', level: 'silent' }),
  vatIds: { check: async () => ({}) },
};
const table = `"${database}"."${TAX_RECORDS}"`;

// One INSERT ... SELECT per batch: documents are built by PostgreSQL from generate_series (the
// ledger's shape, with the fields the reports read), after the collection and its indexes exist.
const SEED_SQL = (from, to) => `
  INSERT INTO ${table} (id, version, doc)
  SELECT lpad(to_hex(g), 24, '0'), 1, jsonb_build_object(
    'organizationId', '${ORG}', 'mode', 'live', 'siteId', 'a' || repeat('0', 23),
    'sourceKind', CASE WHEN g % 3 = 0 THEN 'invoice' ELSE 'transaction' END,
    'sourceId', lpad(to_hex(g), 24, '0'), 'sourceEventId', 'seed-' || g,
    'entryType', CASE WHEN g % 10 = 0 THEN 'reversal' ELSE 'sale' END,
    'recognitionMode', CASE WHEN g % 3 = 0 THEN 'accrual' ELSE 'cash' END,
    'taxPointDate', to_char(t, 'YYYY-MM-DD'),
    'taxPointAt', CASE WHEN g % 3 = 0 THEN NULL ELSE to_char(t, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
    'currency', CASE WHEN g % 7 = 0 THEN 'USD' ELSE 'EUR' END,
    'totals', jsonb_build_object('net', s * n * 1000, 'tax', s * n * 200, 'gross', s * n * 1200),
    'lines', (SELECT jsonb_agg(jsonb_build_object('taxCountry', c, 'taxRateCode', 'VAT_' || c || '_STANDARD', 'taxRate', 20, 'rateType', 'standard',
                'rateVersion', NULL, 'decision', CASE WHEN c = 'DE' THEN 'domestic' ELSE 'oss_destination' END, 'reason', 'seed',
                'itemType', (ARRAY['digital_service','goods','service'])[k], 'net', s * 1000, 'tax', s * 200)) FROM generate_series(1, n) AS k),
    'breakdown', '[]'::jsonb,
    'buyer', jsonb_build_object('country', c, 'type', 'consumer', 'vatIdCheck', jsonb_build_object('status', 'not_given')),
    'seller', jsonb_build_object('homeCountry', 'DE', 'ossEnabled', true, 'ossThresholdExceeded', false),
    'eur', NULL, 'correctsRecordId', NULL, 'linkedTransactionId', NULL,
    'linkedInvoiceId', CASE WHEN g % 11 = 0 AND g % 3 <> 0 THEN lpad(to_hex(g + 1), 24, '0') ELSE NULL END,
    'invoicePayment', g % 11 = 0 AND g % 3 <> 0,
    'createdAt', '2027-01-01T00:00:00.000Z')
  FROM (SELECT g,
               timestamp '2025-01-01' + ((g::bigint * 63113904) / ${ENTRIES}) * interval '1 second' AS t,
               (ARRAY['DE','FR','NL','AT','IT','ES','BE','PL','SE','IE','US','DK'])[1 + g % 12] AS c,
               CASE WHEN g % 10 = 0 THEN -1 ELSE 1 END AS s,
               1 + g % 3 AS n
        FROM generate_series(${from}, ${to}) AS g) x`;

try {
  for (const c of collections) await store.ensureCollection(c);
  const pg = createRequire(join(ROOT, 'libs/store/package.json'))('pg');
  const pool = new pg.Pool({ connectionString: URL_, max: 1 });
  const seedStart = performance.now();
  const BATCH = 50_000;
  for (let from = 1; from <= ENTRIES; from += BATCH) {
    await pool.query(SEED_SQL(from, Math.min(ENTRIES, from + BATCH - 1)));
    process.stdout.write(`\rseeding ${Math.min(ENTRIES, from + BATCH - 1)} / ${ENTRIES}`);
  }
  await pool.query(`VACUUM ANALYZE ${table}`);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  process.stdout.write('\n');

  const request = {
    report: 'by-country',
    startDate: '2026-04-01',
    endDate: '2026-06-30',
    timezone: 'Europe/Berlin',
    source: 'both',
    eurRates: { USD: 1.1 },
  };
  const key = { organizationId: ORG, mode: 'live' };
  const days = [];
  for (
    let d = new Date('2026-04-01T00:00:00Z');
    d <= new Date('2026-06-30T00:00:00Z');
    d = new Date(d.getTime() + 86_400_000)
  )
    days.push(d.toISOString().slice(0, 10));
  const referenceSql = `SELECT doc #>> '{buyer,country}' AS c, sum((doc #>> '{totals,net}')::numeric), sum((doc #>> '{totals,tax}')::numeric), count(*)
                        FROM ${table} WHERE (doc #>> '{organizationId}') = $1 AND (doc #>> '{mode}') = 'live' AND (doc #>> '{taxPointDate}') = ANY($2::text[]) GROUP BY 1`;

  const time = async (fn) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const report = () => taxReport(deps, key, request);
  const reference = () => pool.query(referenceSql, [ORG, days]);
  const first = await report();
  const rows = (await reference()).rows.reduce((s, r) => s + Number(r.count), 0);
  for (let i = 0; i < 3; i++) {
    await report();
    await reference();
  }
  const r = [];
  const ref = [];
  for (let i = 0; i < RUNS; i++) {
    r.push(await time(report));
    ref.push(await time(reference));
  }
  r.sort((a, b) => a - b);
  ref.sort((a, b) => a - b);
  await pool.end();

  const lines = first.data.reduce((s, d) => s + d.lines, 0);
  console.log(
    `ledger: ${ENTRIES.toLocaleString('en')} entries seeded in ${round(seedSeconds)} s (${round(ENTRIES / seedSeconds, 0)} entries/s, with indexes, then VACUUM ANALYZE)`,
  );
  console.log(
    `report: by-country, 2026-Q2 in Europe/Berlin, both sources: ${rows.toLocaleString('en')} entries in the quarter's days, ${lines.toLocaleString('en')} lines counted, ${first.data.length} rows`,
  );
  console.log('');
  console.log('| what | p50 ms | p99 ms | p99 / reference p99 |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| by-country report (${RUNS} runs) | ${round(percentile(r, 50))} | ${round(percentile(r, 99))} | ${round(percentile(r, 99) / percentile(ref, 99), 2)} |`,
  );
  console.log(
    `| reference: one SQL sum over the quarter's rows | ${round(percentile(ref, 50))} | ${round(percentile(ref, 99))} | 1 |`,
  );
  console.log('');
  console.log(`target: p99 under 1000 ms: ${percentile(r, 99) < 1000 ? 'met' : 'NOT met'}`);
} finally {
  await store.close();
  if (!args.keep) await dropStoreDatabase({ url: URL_, database });
}
