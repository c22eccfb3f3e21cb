// The dashboard benches' data set: `n` transactions of the bench merchant, seeded straight into
// the checkout service's table with bulk INSERT ... SELECT statements (documents built by
// PostgreSQL: the merchant's site and two more, three providers, EUR/USD/GBP, every status, refunds
// and lost disputes, spread evenly over the last `days` days), then brought into the dashboard
// buckets by the product's own backfill (services/checkout dist/app/dashboard-backfill.js, what the
// checkout service runs on start-up). Used by dashboard.mjs (the API) and dashboard-app.mjs (the app).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');
const req = createRequire(join(ROOT, 'services/checkout/package.json'));
const { createStore } = req('@paymesh/store');
const { createLogger, systemClock } = req('@paymesh/core');
const { Committer } = req('@paymesh/bus');
const { TRANSACTIONS } = req('./dist/store/collections.js');
const { runBackfill } = req('./dist/app/dashboard-backfill.js');
const URL_ = process.env.STORE_URL ?? process.env.STORE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Seeds and aggregates the data set in the bench mesh `ctx` (startBenchMesh). Answers the figures
 * of the seeding and the backfill, the table's name, a one-connection `pool` on the database and
 * the `spanStart`/`now` of the data; `close()` ends the connections.
 */
export async function seedDashboardData(ctx, { n: N, days: DAYS }) {
  const { boot, providerId, namespace } = ctx;
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

  return {
    table,
    pool,
    spanStart,
    now,
    seedSeconds,
    backfill,
    backfillSeconds,
    buckets,
    close: async () => {
      await pool.end();
      await store.close();
    },
  };
}
