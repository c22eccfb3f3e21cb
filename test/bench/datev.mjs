#!/usr/bin/env node
// `pnpm bench:datev`: a DATEV export of 100,000 postings streams with flat memory (a script that
// prints figures, not a test). See docs/performance.md and docs/datev-gdpdu.md.
//
//   pnpm bench:datev [--invoices 50000] [--clients 5000] [--keep] [--seed-only]
//
// Needs `pnpm build` and the machine's PostgreSQL. Seeds a schema of its own with one
// organization's year: `--invoices` issued invoices spread evenly over 2026, each paid once
// (two postings per invoice: 100,000 for the default), for `--clients` clients. Then, in one
// process and one run, it exports with billing's code on the store (no gRPC):
//   1. DATEV, one month (about a twelfth of the postings),
//   2. DATEV, the whole year (every posting; files split at 99,999 postings),
//   3. the reference: billing's CSV data export of the same invoices (POST /data-import-export/export),
//      which streams page by page too.
// For each: time, rows per second, zip or CSV size, and the peaks of the JS heap (garbage
// included), of the heap the export retains (garbage collected every 20th chunk, that time left
// out of the figures) and of the RSS, above the level measured just before it. Flat memory means
// the year retains about what the month does, though it writes twelve times as much.
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const req = createRequire(join(ROOT, 'services/billing/package.json'));
const { createStore } = req('@paymesh/store');
const { createLogger, SecretBox, DEV_SECRETS_KEYRING } = req('@paymesh/core');
const { collections, INVOICES, CLIENTS } = req('./dist/store/collections.js');
const { exportDatev, listDatevExports } = req('./dist/app/datev-export.js');
const { exportData } = req('./dist/app/data-export.js');
const { updateInvoicingSettings } = req('./dist/app/invoicing-settings.js');

const { values: args } = parseArgs({
  options: {
    invoices: { type: 'string', default: '50000' },
    clients: { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
    'seed-only': { type: 'boolean', default: false },
  },
});
const INVOICE_COUNT = Number(args.invoices);
const CLIENT_COUNT = Number(args.clients);
const URL_ = process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `bench_datev_${randomBytes(4).toString('hex')}`;
const ORG = 'e'.repeat(24);
const key = { organizationId: ORG, mode: 'live' };
const log = (m) => console.log(`[bench:datev] ${m}`);

const store = await createStore({ url: URL_, database });
for (const c of collections) await store.ensureCollection(c);
const deps = {
  store,
  secrets: new SecretBox(DEV_SECRETS_KEYRING),
  clock: { now: () => new Date() },
  logger: createLogger({ service: 'bench', level: 'silent' }),
  dataIo: {
    transactionProviders: async () => new Map(),
    taxRates: async () => [],
    createTaxRate: async () => {},
    transactions: async () => [],
    taxRecords: async () => [],
  },
};

// Documents are built by PostgreSQL from generate_series, with the fields the exports read.
async function seed() {
  const t = (name) => `"${database}"."${name}"`;
  const pg = createRequire(join(ROOT, 'libs/store/package.json'))('pg');
  const pool = new pg.Pool({ connectionString: URL_, max: 1 });
  const sql = (text) => pool.query(text);
  await sql(`
    INSERT INTO ${t(CLIENTS)} (id, version, doc)
    SELECT lpad(to_hex(g), 24, '0'), 1, jsonb_build_object(
      'organizationId', '${ORG}', 'mode', 'live', 'name', 'Kunde ' || g || ' GmbH', 'email', 'k' || g || '@example.com',
      'phone', NULL, 'address', jsonb_build_object('street', 'Weg ' || g, 'city', 'Köln', 'postalCode', '50667', 'country', 'DE'),
      'taxInfo', NULL, 'notes', NULL, 'metadata', NULL,
      'createdAt', '2025-12-01T00:00:00.000Z', 'updatedAt', '2025-12-01T00:00:00.000Z')
    FROM generate_series(1, ${CLIENT_COUNT}) AS g`);
  for (let from = 1; from <= INVOICE_COUNT; from += 10_000) {
    const to = Math.min(INVOICE_COUNT, from + 9_999);
    await sql(`
      INSERT INTO ${t(INVOICES)} (id, version, doc)
      SELECT lpad(to_hex(1000000 + g), 24, '0'), 1, jsonb_build_object(
        'organizationId', '${ORG}', 'mode', 'live', 'status', 'paid', 'number', 'RE-2026-' || lpad(g::text, 6, '0'),
        'siteId', repeat('a', 24), 'clientId', lpad(to_hex(1 + g % ${CLIENT_COUNT}), 24, '0'), 'currency', 'EUR',
        'items', '[]'::jsonb, 'issueDate', d, 'dueDate', d, 'paymentTermsDays', 0, 'servicePeriod', NULL, 'notes', NULL,
        'taxCalculation', NULL, 'totals', jsonb_build_object('net', 10000, 'tax', 1900, 'gross', 11900),
        'amountPaid', 11900,
        'payments', jsonb_build_array(jsonb_build_object('transactionId', lpad(to_hex(2000000 + g), 24, '0'), 'amount', 11900, 'paidAt', d || 'T12:00:00.000Z')),
        'paymentReversals', '[]'::jsonb, 'transactionId', NULL, 'sourceTransactionId', NULL,
        'snapshot', jsonb_build_object(
          'number', 'RE-2026-' || lpad(g::text, 6, '0'), 'issueDate', d, 'dueDate', d, 'servicePeriod', NULL, 'currency', 'EUR',
          'seller', jsonb_build_object('companyName', 'Bench GmbH', 'address', NULL, 'email', NULL, 'vatId', 'DE123456789',
                                       'homeCountry', 'DE', 'bankIBANMasked', NULL, 'bankIBANSealed', NULL),
          'buyer', jsonb_build_object('clientId', lpad(to_hex(1 + g % ${CLIENT_COUNT}), 24, '0'), 'name', 'Kunde ' || (1 + g % ${CLIENT_COUNT}) || ' GmbH',
                                      'email', NULL, 'address', NULL, 'taxId', NULL, 'taxIdType', NULL, 'taxCountry', 'DE', 'peppolRoutingAddress', NULL),
          'taxCalculation', jsonb_build_object('lines', jsonb_build_array(jsonb_build_object(
             'index', 0, 'name', 'Leistung', 'itemType', 'service', 'quantity', 1, 'unitPrice', 11900, 'net', 10000, 'tax', 1900,
             'gross', 11900, 'taxRate', 19, 'taxRateCode', 'VAT_DE_STANDARD', 'taxCountry', 'DE', 'decision', 'domestic'))),
          'totals', jsonb_build_object('net', 10000, 'tax', 1900, 'gross', 11900)),
        'corrections', '[]'::jsonb, 'creditNoteIds', '[]'::jsonb,
        'createdAt', d || 'T08:00:00.000Z', 'updatedAt', d || 'T12:00:00.000Z', 'issuedAt', d || 'T08:00:00.000Z',
        'voidedAt', NULL, 'voidReason', NULL)
      FROM (SELECT g, to_char(date '2026-01-01' + ((g - 1) * 365 / ${INVOICE_COUNT}), 'YYYY-MM-DD') AS d
            FROM generate_series(${from}, ${to}) AS g) x`);
  }
  await sql(`VACUUM ANALYZE ${t(INVOICES)}`);
  await pool.end();
}

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** Runs one export, consuming its chunks as a client would (hashing, not keeping them). */
async function measure(label, gen) {
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sample = () => {
    const m = process.memoryUsage();
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
    if (m.rss > peakRss) peakRss = m.rss;
  };
  let peakRetained = base.heapUsed;
  const cpu0 = process.cpuUsage();
  const statements0 = store.stats().statements;
  const timer = setInterval(sample, 20);
  const hash = createHash('sha256');
  let bytes = 0;
  let chunks = 0;
  let gcMs = 0;
  const started = process.hrtime.bigint();
  for await (const chunk of gen) {
    hash.update(chunk);
    bytes += chunk.length;
    sample();
    // What the export holds (garbage collected first), every 20th chunk; the GC time is left out.
    if (globalThis.gc && ++chunks % 20 === 0) {
      const t = process.hrtime.bigint();
      globalThis.gc();
      gcMs += Number(process.hrtime.bigint() - t) / 1e6;
      peakRetained = Math.max(peakRetained, process.memoryUsage().heapUsed);
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6 - gcMs;
  clearInterval(timer);
  sample();
  const cpu = process.cpuUsage(cpu0);
  return {
    label,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    statements: store.stats().statements - statements0,
    bytes,
    heap: peakHeap - base.heapUsed,
    retained: peakRetained - base.heapUsed,
    rss: peakRss - base.rss,
  };
}

try {
  if (typeof globalThis.gc !== 'function') log('run with node --expose-gc for steadier figures');
  log(`seeding ${INVOICE_COUNT} paid invoices for ${CLIENT_COUNT} clients in ${database}`);
  await seed();
  await updateInvoicingSettings(deps, key, {
    timeZone: 'Europe/Berlin',
    datev: { consultantNumber: 29098, clientNumber: 55003 },
  });
  if (args['seed-only']) {
    log(`seeded ${database}; kept for inspection`);
    process.exit(0);
  }
  const postings = INVOICE_COUNT * 2;
  const month = await measure(
    'DATEV, January',
    exportDatev(deps, key, { from: '2026-01-01', to: '2026-01-31', select: 'all' }, 'bench'),
  );
  const year = await measure(
    'DATEV, the year',
    exportDatev(deps, key, { from: '2026-01-01', to: '2026-12-31', select: 'all' }, 'bench'),
  );
  const reference = await measure(
    'reference: CSV export of the invoices',
    exportData(deps, key, { entityType: 'invoices', from: '2026-01-01', to: '2026-12-31' }),
  );
  const monthPostings = Math.round((postings * 31) / 365);
  const rows = [
    [month, monthPostings, 'postings'],
    [year, postings, 'postings'],
    [reference, INVOICE_COUNT, 'rows'],
  ];
  console.log('');
  console.log(
    '| export | rows | time | CPU of the process | store statements | rows/s | output | peak heap above start | peak retained heap above start | peak RSS above start |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [r, n, unit] of rows)
    console.log(
      `| ${r.label} | ${n.toLocaleString('en')} ${unit} | ${(r.ms / 1000).toFixed(1)} s | ${(r.cpuMs / 1000).toFixed(1)} s | ${r.statements} | ${Math.round((n * 1000) / r.ms).toLocaleString('en')} | ${mb(r.bytes)} | ${mb(r.heap)} | ${mb(r.retained)} | ${mb(r.rss)} |`,
    );
  const recorded = (await listDatevExports(deps, key, { page: 1, limit: 2 })).items;
  for (const r of recorded.reverse())
    log(`recorded ${r.from}..${r.to}: ${r.status}, ${r.postings} postings in ${r.files} file(s), digest ${r.digest}`);
  console.log('');
  log(
    `retained heap of the year / of the month: ${(year.retained / Math.max(1, month.retained)).toFixed(2)} for ${(postings / monthPostings).toFixed(1)}x the postings`,
  );
} finally {
  if (!args.keep) await store.dropDatabase();
  await store.close();
}
