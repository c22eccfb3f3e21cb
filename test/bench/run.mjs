#!/usr/bin/env node
// `pnpm bench`: what the mesh costs, next to references measured in the same run on the same
// machine (a script that prints figures, not a test). See docs/performance.md.
//
//   pnpm bench [--quick] [--seconds 10] [--flow-seconds 20] [--buyers 1,8,32] [--flows N]
//              [--invoiced-flows 20] [--reference-seconds 5] [--connections 10] [--profile]
//              [--log-level warn] [--out file]
//
// References: (a) bare Fastify hello world, (b) a minimal HTTP -> gRPC -> PostgreSQL indexed read
// (fastify, @grpc/grpc-js, pg), (c) a JetStream publish -> pull-consume round trip. Then the mesh:
// idle CPU, authenticated GET /api/v1/sites, POST /api/v1/checkouts/:siteId/create and the pay
// flow at each buyer count, with CPU ms per flow per process (/proc/<pid>/stat) and PostgreSQL
// work per flow (the services' own statement counters too), then the invoiced flow (pay, automatic
// invoice, invoice e-mail with its PDF) one flow at a time, with Chromium's CPU apart. Results go to
// .run/bench/<timestamp>.json so runs can be compared.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT, helloWorld, startRawChain, jetstreamRoundTrip, httpLoad, sequentialLatency } from './lib/references.mjs';
import { startBenchMesh, payFlowLoad, checkoutBody, limitedLog } from './lib/bench-mesh.mjs';
import { costCounterReader, countsPerFlow } from './lib/cost-counters.mjs';
import { startInvoicedFlows } from './lib/invoiced-flow.mjs';
import { cpuSnapshot, cpuDelta, descendantsCpu } from './lib/procs.mjs';
import { median, percentile, round } from './lib/stats.mjs';
import { summariseProfile } from './lib/profile-summary.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    'flow-seconds': { type: 'string' },
    buyers: { type: 'string', default: '1,8,32' },
    flows: { type: 'string' },
    'invoiced-flows': { type: 'string' },
    'reference-seconds': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'idle-seconds': { type: 'string' },
    connections: { type: 'string', default: '10' },
    profile: { type: 'boolean', default: false },
    'profile-buyers': { type: 'string', default: '8' },
    'log-level': { type: 'string', default: 'warn' },
    'timeout-ms': { type: 'string', default: '60000' },
    out: { type: 'string' },
  },
});
const quick = args.quick;
const SECONDS = Number(args.seconds ?? (quick ? 4 : 10));
const FLOW_SECONDS = Number(args['flow-seconds'] ?? (quick ? 8 : 20));
const REF_SECONDS = Number(args['reference-seconds'] ?? (quick ? 3 : 5));
const IDLE_SECONDS = Number(args['idle-seconds'] ?? (quick ? 5 : 10));
const CONNECTIONS = Number(args.connections);
const ROUNDS = Math.max(1, Number(args.rounds));
const BUYERS = args.buyers
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const MAX_FLOWS = args.flows ? Number(args.flows) : Infinity;
const INVOICED_FLOWS = Math.max(0, Number(args['invoiced-flows'] ?? (quick ? 8 : 20)));
/** Unmeasured invoiced flows first: the first render starts Chromium and opens its page. */
const INVOICED_WARMUP = 2;
/** Reads of a paid invoice after the invoiced flows, to know what the bench's own reads cost. */
const INVOICE_READS = 20;
const PROFILE_BUYERS = Number(args['profile-buyers']);
const PG_URL = process.env.STORE_URL?.startsWith('postgres')
  ? process.env.STORE_URL
  : 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const profileDir = args.profile ? join(ROOT, '.run', 'bench', `profile-${stamp}`) : undefined;

const meshErrors = limitedLog('[mesh error]');
const flowErrors = limitedLog('[flow error]');
const counters = costCounterReader();
const log = (msg) => console.log(`[bench] ${msg}`);
const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What PostgreSQL can tell about statements: pg_stat_statements when loaded, else how to enable it. */
async function pgStatements(db) {
  const preload = (await db.query('SHOW shared_preload_libraries')).rows[0].shared_preload_libraries ?? '';
  if (!preload.includes('pg_stat_statements')) {
    return {
      available: false,
      how: "pg_stat_statements is not loaded. To enable: ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'; restart PostgreSQL; CREATE EXTENSION pg_stat_statements; (or count them from the store: node test/bench/store-statements.mjs)",
    };
  }
  const ext = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'");
  if (!ext.rowCount)
    return {
      available: false,
      how: 'pg_stat_statements is preloaded but not created in this database: CREATE EXTENSION pg_stat_statements;',
    };
  return { available: true };
}

async function statementCalls(db, namespace) {
  // Statements naming one of the namespace's schemas (BEGIN/COMMIT name none and are not counted).
  const r = await db.query(
    `SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements WHERE query LIKE $1`,
    [`%${namespace}\\_%`],
  );
  return Number(r.rows[0].calls);
}

/** Table scans and rows written in the namespace's schemas (pg_stat_user_tables). */
async function tableActivity(db, namespace) {
  const r = await db.query(
    `SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::bigint AS scans,
            coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS writes
       FROM pg_stat_user_tables WHERE schemaname LIKE $1`,
    [`${namespace}\\_%`],
  );
  return { scans: Number(r.rows[0].scans), writes: Number(r.rows[0].writes) };
}

/** Backends publish table statistics up to ~1 s after a transaction (idle ones later): wait until the figures stop moving. */
async function settledActivity(db, namespace) {
  let last = await tableActivity(db, namespace);
  for (let stable = 0, i = 0; stable < 2 && i < 15; i++) {
    await sleep(1000);
    const cur = await tableActivity(db, namespace);
    stable = cur.scans === last.scans && cur.writes === last.writes ? stable + 1 : 0;
    last = cur;
  }
  return last;
}

/**
 * Every service's own counters now (store statements, rows written, ...; SIGUSR2, see
 * lib/cost-counters.mjs) with the time they were read, or undefined once a read failed (said once).
 */
let countersFailed = false;
async function readCounters(pids) {
  if (countersFailed) return undefined;
  try {
    return { at: performance.now(), counts: await counters.read(pids) };
  } catch (err) {
    countersFailed = true;
    log(`the services' cost counters could not be read, statement counts are n/a: ${err.message ?? err}`);
    return undefined;
  }
}

/**
 * Store statements per flow from the services' counters read before and after a phase (`flows`
 * completed): total and per service, and how many of them the idle mesh's background timers make
 * in that window (`idleStatementsPerSecond`, measured while idle) shared over the flows.
 */
function statementsPerFlow(before, after, flows, idleStatementsPerSecond) {
  if (!before || !after) return null;
  const per = countsPerFlow(before.counts, after.counts, flows);
  const seconds = (after.at - before.at) / 1000;
  return {
    perFlow: per.total.statements,
    byService: Object.fromEntries(Object.entries(per.perService).map(([svc, c]) => [svc, c.statements])),
    otherCountsPerFlow: {
      rowsWritten: per.total.rowsWritten,
      grpcCallsMade: per.total.grpcCallsMade,
      published: per.total.published,
      consumed: per.total.consumed,
    },
    windowSeconds: round(seconds, 1),
    idleBackgroundPerFlow: Number.isFinite(idleStatementsPerSecond)
      ? round((idleStatementsPerSecond * seconds) / Math.max(flows, 1), 2)
      : null,
  };
}

/**
 * The invoiced flow phase: `INVOICED_FLOWS` invoiced flows one after another (after
 * `INVOICED_WARMUP` unmeasured ones), with CPU ms per flow of every mesh process and, apart, of
 * the documents service's Chromium (its descendant processes). The bench's own invoice reads (it
 * waits for the invoice to be paid) are measured apart afterwards (`INVOICE_READS` reads of a paid
 * invoice) so that the flow's figure can leave them out.
 */
async function invoicedPhase(ctx, db, idleStatementsPerSecond) {
  const { pids, namespace } = ctx;
  let flows;
  try {
    flows = await startInvoicedFlows(ctx, { natsUrl: NATS_URL });
  } catch (err) {
    log(`  skipped: ${err.message ?? err}`);
    return { skipped: String(err.message ?? err) };
  }
  try {
    for (let i = 0; i < INVOICED_WARMUP; i++) {
      await flows.flow(`warm-up-${i}`).catch((err) => flowErrors(`invoiced warm-up ${i}: ${err.message ?? err}`));
    }
    await settledActivity(db, namespace);
    const c0 = await readCounters(pids);
    const documents = pids.documents;
    const cpu0 = cpuSnapshot(pids);
    const chromium0 = descendantsCpu(documents);
    const started = performance.now();
    const latencies = [];
    const stages = {};
    const done = [];
    let lookups = 0;
    let failures = 0;
    for (let n = 0; n < INVOICED_FLOWS; n++) {
      try {
        const flow = await flows.flow(n);
        done.push(flow);
        latencies.push(flow.ms);
        lookups += flow.lookups;
        for (const [k, v] of Object.entries(flow.stages)) (stages[k] ??= []).push(v);
      } catch (err) {
        failures += 1;
        flowErrors(`invoiced flow ${n}: ${err.message ?? err}`);
      }
    }
    const elapsed = (performance.now() - started) / 1000;
    const cpu = cpuDelta(cpu0, cpuSnapshot(pids));
    const chromium1 = descendantsCpu(documents);
    await settledActivity(db, namespace);
    const c1 = await readCounters(pids);
    const unmailed = await flows.checkMail(done);
    for (const f of unmailed) flowErrors(`invoiced flow: no e-mail with a PDF to ${f.email} in the mail catcher`);
    const reads = done.length ? await invoiceReadCost(flows, done[done.length - 1].invoiceId, pids) : null;
    const completed = latencies.length - unmailed.length;
    const per = (v) => v / Math.max(completed, 1);
    latencies.sort((a, b) => a - b);
    const withoutChromium = per(sum(cpu));
    const chromium = per(chromium1.ms - chromium0.ms);
    const readsPerFlow = per(lookups);
    const benchReads = reads ? readsPerFlow * reads.cpuMsPerRead : NaN;
    return {
      flows: INVOICED_FLOWS,
      warmUpFlows: INVOICED_WARMUP,
      completed,
      failures: failures + unmailed.length,
      flowsPerSecond: completed / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      stageP50: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, median(v)])),
      invoiceReadsPerFlow: readsPerFlow,
      invoiceRead: reads,
      benchReadsCpuMsPerFlow: benchReads,
      cpuMsPerFlow: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(per(v), 2)])),
      cpuMsPerFlowWithoutChromium: withoutChromium,
      chromiumCpuMsPerFlow: chromium,
      chromiumProcesses: { atStart: chromium0.processes, atEnd: chromium1.processes },
      cpuMsPerFlowTotal: withoutChromium + chromium,
      // The target's figure: the flow without Chromium and without the bench's own invoice reads.
      cpuMsPerFlowWithoutChromiumAndReads: withoutChromium - benchReads,
      storeStatements: statementsPerFlow(c0, c1, completed, idleStatementsPerSecond),
    };
  } finally {
    await flows.stop();
  }
}

/** CPU ms (all mesh processes) and store statements of one `GET /invoices/:id`, from `INVOICE_READS` reads. */
async function invoiceReadCost(flows, invoiceId, pids) {
  const c0 = await readCounters(pids);
  const cpu0 = cpuSnapshot(pids);
  for (let i = 0; i < INVOICE_READS; i++) await flows.readInvoice(invoiceId);
  const cpu = cpuDelta(cpu0, cpuSnapshot(pids));
  const c1 = await readCounters(pids);
  return {
    reads: INVOICE_READS,
    cpuMsPerRead: sum(cpu) / INVOICE_READS,
    statementsPerRead: c0 && c1 ? countsPerFlow(c0.counts, c1.counts, INVOICE_READS).total.statements : null,
  };
}

/**
 * A mesh route measured beside the raw chain: `ROUNDS` alternations of chain then route, so both
 * see the same machine load (other work on the machine changes by the minute). Rates are means
 * over the rounds, p50 the median of the rounds' p50s, p99 the worst round's.
 */
async function paired(chain, routeLoad, seconds) {
  const slice = Math.max(1, Math.round(seconds / ROUNDS));
  const chainRounds = [];
  const routeRounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    chainRounds.push(await chain.load({ seconds: slice, connections: CONNECTIONS }));
    routeRounds.push(await routeLoad(slice));
  }
  const merge = (rounds) => {
    const ok = rounds.reduce((a, r) => a + r.rps * slice, 0);
    return {
      rps: ok / (slice * rounds.length),
      p50: median(rounds.map((r) => r.p50)),
      p99: Math.max(...rounds.map((r) => r.p99)),
      requests: rounds.reduce((a, r) => a + r.requests, 0),
      failed: rounds.reduce((a, r) => a + r.failed, 0),
      cpuMsPerRequest: rounds.reduce((a, r) => a + r.cpuMsPerRequest * r.rps * slice, 0) / Math.max(ok, 1),
      rounds: rounds.map((r) => round(r.rps, 0)),
    };
  };
  const route = merge(routeRounds);
  const ref = merge(chainRounds);
  return { ...route, chain: ref, ratio: route.rps / ref.rps, cpuRatio: ref.cpuMsPerRequest / route.cpuMsPerRequest };
}

function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}
function lpad(s, n) {
  s = String(s);
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const f0 = (n) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const pct = (n) => (Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : 'n/a');

async function main() {
  const os = await import('node:os');
  const result = {
    startedAt: new Date().toISOString(),
    host: { cpus: os.cpus().length, node: process.version, loadAvgAtStart: os.loadavg() },
    settings: {
      SECONDS,
      FLOW_SECONDS,
      REF_SECONDS,
      IDLE_SECONDS,
      CONNECTIONS,
      BUYERS,
      MAX_FLOWS: Number.isFinite(MAX_FLOWS) ? MAX_FLOWS : null,
      logLevel: args['log-level'],
      profile: Boolean(profileDir),
    },
  };

  log(`references (${REF_SECONDS} s each, ${CONNECTIONS} connections)...`);
  const hello = await helloWorld({ seconds: REF_SECONDS, connections: CONNECTIONS });
  log(`  hello world ${f0(hello.rps)} req/s`);
  const rawChain = await startRawChain({ pgUrl: PG_URL });
  const db = new pg.Client({ connectionString: PG_URL });
  let ctx;
  try {
    const chain = await rawChain.load({ seconds: REF_SECONDS, connections: CONNECTIONS });
    const chainUnloaded = await rawChain.unloaded(REF_SECONDS);
    chain.unloadedP50 = chainUnloaded.p50;
    chain.unloadedP99 = chainUnloaded.p99;
    log(`  raw chain ${f0(chain.rps)} req/s, unloaded p50 ${f1(chain.unloadedP50)} ms`);
    const jet = await jetstreamRoundTrip({ seconds: REF_SECONDS, inFlight: CONNECTIONS, natsUrl: NATS_URL });
    log(`  JetStream round trip ${f0(jet.rps)} msg/s`);
    result.references = { hello, rawChain: chain, jetstream: jet };

    await db.connect();
    const statements = await pgStatements(db);
    result.pgStatements = statements;

    log(`starting the mesh${profileDir ? ' (CPU profiler hook loaded)' : ''}...`);
    ctx = await startBenchMesh({
      logLevel: args['log-level'],
      profileDir,
      flowTimeoutMs: Number(args['timeout-ms']),
      onError: meshErrors,
      onLine: counters.onLine,
    });
    const { pids, namespace } = ctx;

    // Idle: the mesh doing nothing but its own timers (outbox relays, consumers, health).
    await sleep(3000);
    const idleCounters0 = await readCounters(pids);
    const idle0 = cpuSnapshot(pids);
    await sleep(IDLE_SECONDS * 1000);
    const idleMs = cpuDelta(idle0, cpuSnapshot(pids));
    const idleCounters1 = await readCounters(pids);
    result.idle = {
      seconds: IDLE_SECONDS,
      perProcessPctOfCore: Object.fromEntries(
        Object.entries(idleMs).map(([n, ms]) => [n, round((ms / (IDLE_SECONDS * 1000)) * 100, 2)]),
      ),
      totalPctOfCore: (sum(idleMs) / (IDLE_SECONDS * 1000)) * 100,
      // Statements the idle mesh's timers make (relay safety poll, schedulers, sweeps).
      storeStatementsPerSecond:
        idleCounters0 && idleCounters1
          ? (countsPerFlow(idleCounters0.counts, idleCounters1.counts, 1).total.statements * 1000) /
            (idleCounters1.at - idleCounters0.at)
          : null,
    };
    log(`  idle mesh ${f1(result.idle.totalPctOfCore)} % of one core`);

    const auth = { authorization: `Bearer ${ctx.boot.apiKey}` };
    const sitesUrl = `${ctx.mesh.adminBaseUrl}/sites`;
    log(`GET /api/v1/sites (${SECONDS} s, beside the raw chain in ${ROUNDS} rounds)...`);
    await httpLoad({ url: sitesUrl, connections: CONNECTIONS, seconds: 2, headers: auth });
    result.getSites = await paired(
      rawChain,
      (seconds) => httpLoad({ url: sitesUrl, connections: CONNECTIONS, seconds, headers: auth, cpuPids: pids }),
      SECONDS,
    );
    result.getSites.unloaded = await sequentialLatency(sitesUrl, Math.min(REF_SECONDS, 3), auth);
    log(`  ${f0(result.getSites.rps)} req/s = ${pct(result.getSites.ratio)} of the raw chain beside it`);

    log(`POST /api/v1/checkouts/:siteId/create (${SECONDS} s)...`);
    let n = 0;
    const createUrl = `${ctx.mesh.adminBaseUrl}/checkouts/${ctx.boot.siteId}/create`;
    const setupRequest = (req) => ({ ...req, body: JSON.stringify(checkoutBody(`ac${n++}`, ctx.receiver.url)) });
    const createHeaders = { ...auth, 'content-type': 'application/json' };
    await httpLoad({
      url: createUrl,
      method: 'POST',
      connections: CONNECTIONS,
      seconds: 2,
      headers: createHeaders,
      setupRequest,
    });
    result.createCheckout = await paired(
      rawChain,
      (seconds) =>
        httpLoad({
          url: createUrl,
          method: 'POST',
          connections: CONNECTIONS,
          seconds,
          headers: createHeaders,
          setupRequest,
          cpuPids: pids,
        }),
      SECONDS,
    );
    log(`  ${f0(result.createCheckout.rps)} req/s = ${pct(result.createCheckout.ratio)} of the raw chain beside it`);

    log('pay flow warm-up...');
    await payFlowLoad(ctx, { buyers: 2, seconds: 3, maxFlows: 10, firstFlow: 900_000, onError: flowErrors });
    result.payFlow = {};
    let firstFlow = 0;
    for (const buyers of BUYERS) {
      log(
        `pay flow, ${buyers} buyer(s), ${FLOW_SECONDS} s${Number.isFinite(MAX_FLOWS) ? ` or ${MAX_FLOWS} flows` : ''}...`,
      );
      const chainNow = await rawChain.unloaded(2);
      const act0 = await settledActivity(db, namespace);
      const st0 = statements.available ? await statementCalls(db, namespace) : undefined;
      const counters0 = await readCounters(pids);
      const profiling = profileDir && buyers === PROFILE_BUYERS;
      if (profiling) result.profileWindow = { fromUs: Number(process.hrtime.bigint() / 1000n) };
      const cpu0 = cpuSnapshot(pids);
      const load = await payFlowLoad(ctx, {
        buyers,
        seconds: FLOW_SECONDS,
        maxFlows: MAX_FLOWS,
        firstFlow,
        onError: flowErrors,
      });
      const cpu = cpuDelta(cpu0, cpuSnapshot(pids));
      if (profiling) result.profileWindow.toUs = Number(process.hrtime.bigint() / 1000n);
      firstFlow += load.started;
      const act1 = await settledActivity(db, namespace);
      const st1 = statements.available ? await statementCalls(db, namespace) : undefined;
      const counters1 = await readCounters(pids);
      const per = (v) => v / Math.max(load.completed, 1);
      result.payFlow[buyers] = {
        buyers,
        completed: load.completed,
        failures: load.failures,
        flowsPerSecond: load.flowsPerSecond,
        p50: percentile(load.latencies, 50),
        p99: percentile(load.latencies, 99),
        chainUnloadedP50: chainNow.p50,
        stageP50: load.stageP50,
        cpuMsPerFlow: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(per(v), 2)])),
        cpuMsPerFlowTotal: per(sum(cpu)),
        pgStatementsPerFlow: st0 !== undefined ? per(st1 - st0) : null,
        pgTableScansPerFlow: per(act1.scans - act0.scans),
        pgRowsWrittenPerFlow: per(act1.writes - act0.writes),
        storeStatements: statementsPerFlow(counters0, counters1, load.completed, result.idle.storeStatementsPerSecond),
      };
      const r = result.payFlow[buyers];
      log(
        `  ${f1(r.flowsPerSecond)} flows/s, p50 ${f0(r.p50)} ms, p99 ${f0(r.p99)} ms, ${f1(r.cpuMsPerFlowTotal)} CPU ms/flow, ${r.failures} failed`,
      );
    }
    if (INVOICED_FLOWS > 0) {
      log(
        `invoiced flow, ${INVOICED_FLOWS} flows one after another (pay, automatic invoice, invoice e-mail with its PDF)...`,
      );
      result.invoicedFlow = await invoicedPhase(ctx, db, result.idle.storeStatementsPerSecond);
      const r = result.invoicedFlow;
      if (!r.skipped)
        log(
          `  p50 ${f0(r.p50)} ms, ${f1(r.cpuMsPerFlowWithoutChromium)} CPU ms/flow without Chromium + ${f1(r.chromiumCpuMsPerFlow)} Chromium, ${r.failures} failed`,
        );
    }
    result.badIpnSignatures = ctx.receiver.badSignatures;
    result.meshErrorLines = meshErrors.count;
  } finally {
    await ctx?.stop();
    await db.end().catch(() => undefined);
    await rawChain.stop();
  }

  if (profileDir && existsSync(profileDir)) {
    const phase = result.payFlow[PROFILE_BUYERS];
    const hottest = phase
      ? Object.entries(phase.cpuMsPerFlow)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([name]) => name)
      : [];
    result.profiles = {};
    for (const name of hottest) {
      const file = join(profileDir, `${name}.cpuprofile`);
      if (existsSync(file))
        result.profiles[name] = { file, ...summariseProfile(file, { window: result.profileWindow }) };
    }
  }

  result.host.loadAvgAtEnd = os.loadavg();
  report(result, result.pgStatements);
  const out = args.out ?? join(ROOT, '.run', 'bench', `${stamp}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresults written to ${out}`);
}

/** The pay-flow level whose statement count says the most: the one with the most flows. */
function statementLevel(r) {
  return Object.values(r.payFlow)
    .filter((p) => p.storeStatements)
    .sort((a, b) => b.completed - a.completed)[0];
}

/** `checkout 20.0, tax 6.0, ...`: statements per flow of each service that made any, most first. */
function byService(statements) {
  return Object.entries(statements.byService)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([svc, n]) => `${svc} ${f1(n)}`)
    .join(', ');
}

/** Target row: CPU of an invoiced flow without Chromium against a pay flow's at 1 buyer. */
function invoicedTarget(r) {
  const name = 'invoiced flow CPU without Chromium / pay flow @1';
  const inv = r.invoicedFlow;
  const at1 = r.payFlow[1];
  if (!inv || inv.skipped || !inv.completed || !at1) return [name, 'n/a', '<= 2x', null];
  const ratio = inv.cpuMsPerFlowWithoutChromiumAndReads / at1.cpuMsPerFlowTotal;
  return [
    name,
    `${f2(ratio)}x (${f1(inv.cpuMsPerFlowWithoutChromiumAndReads)}/${f1(at1.cpuMsPerFlowTotal)})`,
    '<= 2x',
    ratio <= 2,
  ];
}

/** Target row: store statements per pay flow (services' counters) at the level with the most flows. */
function statementsTarget(r) {
  const level = statementLevel(r);
  if (!level) return ['store statements per pay flow', 'n/a', '<= 25', null];
  return [
    `store statements per pay flow (counters, @${level.buyers})`,
    f1(level.storeStatements.perFlow),
    '<= 25',
    level.storeStatements.perFlow <= 25,
  ];
}

function report(r, statements) {
  const chain = r.references.rawChain;
  const rows = [
    [
      '(a) Fastify hello world',
      `${f0(r.references.hello.rps)} req/s`,
      r.references.hello.p50,
      r.references.hello.p99,
      'itself',
      '1.00',
    ],
    [
      '(b) raw HTTP->gRPC->PG read',
      `${f0(chain.rps)} req/s`,
      chain.p50,
      chain.p99,
      '(a)',
      (chain.rps / r.references.hello.rps).toFixed(2),
    ],
    [
      '(c) JetStream round trip',
      `${f0(r.references.jetstream.rps)} msg/s`,
      r.references.jetstream.p50,
      r.references.jetstream.p99,
      '(a)',
      (r.references.jetstream.rps / r.references.hello.rps).toFixed(2),
    ],
    ['(b) beside GET /sites', `${f0(r.getSites.chain.rps)} req/s`, r.getSites.chain.p50, r.getSites.chain.p99, '', ''],
    [
      'GET /api/v1/sites',
      `${f0(r.getSites.rps)} req/s`,
      r.getSites.p50,
      r.getSites.p99,
      '(b) beside it',
      r.getSites.ratio.toFixed(2),
    ],
    [
      '(b) beside checkout create',
      `${f0(r.createCheckout.chain.rps)} req/s`,
      r.createCheckout.chain.p50,
      r.createCheckout.chain.p99,
      '',
      '',
    ],
    [
      'POST checkouts/:siteId/create',
      `${f0(r.createCheckout.rps)} req/s`,
      r.createCheckout.p50,
      r.createCheckout.p99,
      '(b) beside it',
      r.createCheckout.ratio.toFixed(2),
    ],
  ];
  for (const p of Object.values(r.payFlow)) {
    rows.push([
      `pay flow, ${p.buyers} buyer(s)`,
      `${f1(p.flowsPerSecond)} flows/s`,
      p.p50,
      p.p99,
      '(b) unloaded p50',
      `${(p.p50 / p.chainUnloadedP50).toFixed(1)}x latency`,
    ]);
  }
  console.log('\nfigures (same run, same machine)');
  console.log(
    `  ${pad('measurement', 32)}${lpad('rate', 16)}${lpad('p50 ms', 10)}${lpad('p99 ms', 10)}  ${pad('reference', 19)}ratio`,
  );
  for (const [name, rate, p50, p99, ref, ratio] of rows)
    console.log(`  ${pad(name, 32)}${lpad(rate, 16)}${lpad(f1(p50), 10)}${lpad(f1(p99), 10)}  ${pad(ref, 19)}${ratio}`);
  console.log(
    `  unloaded (one request at a time): raw chain p50 ${f1(chain.unloadedP50)} ms, p99 ${f1(chain.unloadedP99)} ms; GET /sites p50 ${f1(r.getSites.unloaded.p50)} ms, p99 ${f1(r.getSites.unloaded.p99)} ms`,
  );
  console.log(
    `  CPU ms per request, all processes of each side: raw chain ${f2(r.getSites.chain.cpuMsPerRequest)}, GET /sites ${f2(r.getSites.cpuMsPerRequest)} (chain/mesh ${pct(r.getSites.cpuRatio)}), checkout create ${f2(r.createCheckout.cpuMsPerRequest)} (${pct(r.createCheckout.cpuRatio)})`,
  );
  const failed = [r.getSites.failed, r.createCheckout.failed, ...Object.values(r.payFlow).map((p) => p.failures)];
  console.log(
    `  failures: GET /sites ${failed[0]}, checkout create ${failed[1]}, pay flows ${failed.slice(2).join('/')}; bad IPN signatures ${r.badIpnSignatures}; mesh error lines ${r.meshErrorLines}`,
  );

  const levels = Object.values(r.payFlow);
  console.log(
    '\npay flow stages, p50 ms (ipn = pay page answered -> verified IPN received: relay, JetStream, consumers, IPN scheduler)',
  );
  const stageNames = Object.keys(levels[0]?.stageP50 ?? {});
  console.log(`  ${pad('buyers', 10)}${stageNames.map((n) => lpad(n, 13)).join('')}`);
  for (const p of levels)
    console.log(`  ${pad(p.buyers, 10)}${stageNames.map((n) => lpad(f1(p.stageP50[n]), 13)).join('')}`);
  const services = Object.keys(levels[0]?.cpuMsPerFlow ?? {}).sort(
    (a, b) => (levels[0].cpuMsPerFlow[b] ?? 0) - (levels[0].cpuMsPerFlow[a] ?? 0),
  );
  console.log('\nCPU ms per pay flow, per process (utime+stime from /proc/<pid>/stat)');
  console.log(
    `  ${pad('process', 22)}${levels.map((p) => lpad(`${p.buyers} buyer(s)`, 14)).join('')}${lpad('idle % core', 14)}`,
  );
  for (const s of services)
    console.log(
      `  ${pad(s, 22)}${levels.map((p) => lpad(f1(p.cpuMsPerFlow[s]), 14)).join('')}${lpad(f1(r.idle.perProcessPctOfCore[s]), 14)}`,
    );
  console.log(
    `  ${pad('total', 22)}${levels.map((p) => lpad(f1(p.cpuMsPerFlowTotal), 14)).join('')}${lpad(f1(r.idle.totalPctOfCore), 14)}`,
  );
  console.log(
    `  ${pad('mesh CPU used, cores', 22)}${levels.map((p) => lpad(f2((p.flowsPerSecond * p.cpuMsPerFlowTotal) / 1000), 14)).join('')}`,
  );
  console.log(
    `  CPU-bound ceiling on this machine's ${r.host.cpus} cores: ~${levels.map((p) => f0((r.host.cpus * 1000) / p.cpuMsPerFlowTotal)).join(' / ')} flows/s (cores x 1000 / CPU ms per flow, before the load generator's share);` +
      ` 1-min load average ${r.host.loadAvgAtStart.map((l) => l.toFixed(1))[0]} at start, ${r.host.loadAvgAtEnd.map((l) => l.toFixed(1))[0]} at end`,
  );
  console.log('\nPostgreSQL work per pay flow');
  if (statements.available)
    console.log(
      `  statements (pg_stat_statements, namespace schemas; BEGIN/COMMIT not counted): ${levels.map((p) => f1(p.pgStatementsPerFlow)).join(' / ')}`,
    );
  else console.log(`  statements: n/a. ${statements.how}`);
  console.log(
    `  table scans (pg_stat_user_tables, approx.): ${levels.map((p) => `${f1(p.pgTableScansPerFlow)} @${p.buyers}`).join(', ')}`,
  );
  console.log(
    `  rows written (pg_stat_user_tables, approx.): ${levels.map((p) => `${f1(p.pgRowsWrittenPerFlow)} @${p.buyers}`).join(', ')}`,
  );
  const counted = levels.filter((p) => p.storeStatements);
  if (counted.length) {
    console.log(
      `  store statements (the services' own counters, BEGIN/COMMIT included, summed over the level and its settling ÷ flows): ${counted.map((p) => `${f1(p.storeStatements.perFlow)} @${p.buyers}`).join(', ')}`,
    );
    console.log(
      `    of which the idle mesh's timers (${f2(r.idle.storeStatementsPerSecond)} statements/s while idle) make about ${counted.map((p) => `${f2(p.storeStatements.idleBackgroundPerFlow)} @${p.buyers}`).join(', ')}`,
    );
    const most = statementLevel(r);
    console.log(`    by service @${most.buyers}: ${byService(most.storeStatements)}`);
  } else console.log("  store statements (services' counters): n/a");

  const inv = r.invoicedFlow;
  if (inv?.skipped) console.log(`\ninvoiced flow: skipped (${inv.skipped})`);
  else if (inv) {
    console.log(
      `\ninvoiced flow: ${inv.completed} of ${inv.flows} one after another after ${inv.warmUpFlows} warm-up flows (pay flow of a merchant with automatic invoices, the invoice, its e-mail with the PDF to the mail catcher; every message and PDF checked there after the flows), ${inv.failures} failed`,
    );
    const stages = Object.entries(inv.stageP50).map(([k, v]) => `${k} ${f0(v)} ms`);
    console.log(
      `  p50 ${f0(inv.p50)} ms, p99 ${f0(inv.p99)} ms; stages p50: ${stages.join(', ')} (invoice = IPN -> invoice read as paid; email = send request -> e-mail delivered to the mail catcher)`,
    );
    console.log(
      `  the bench reads the invoice until it is paid (GET /invoices/:id; billing announces no event for it): ${f1(inv.invoiceReadsPerFlow)} reads per flow, in the per-process figures below; one read costs ${f2(inv.invoiceRead?.cpuMsPerRead)} CPU ms and ${f1(inv.invoiceRead?.statementsPerRead)} statements (${inv.invoiceRead?.reads ?? 0} reads measured after the flows)`,
    );
    console.log(
      "  CPU ms per invoiced flow, per process (utime+stime; Chromium = the documents process's descendants, utime+stime of the live ones and cutime+cstime of the ended ones their parents reaped)",
    );
    const at1 = r.payFlow[1];
    console.log(`  ${pad('process', 36)}${lpad('invoiced flow', 14)}${lpad('pay flow @1', 14)}`);
    const procs = Object.keys(inv.cpuMsPerFlow).sort((a, b) => inv.cpuMsPerFlow[b] - inv.cpuMsPerFlow[a]);
    for (const s of procs)
      console.log(
        `  ${pad(s === 'documents' ? 'documents (the node process)' : s, 36)}${lpad(f1(inv.cpuMsPerFlow[s]), 14)}${lpad(at1 ? f1(at1.cpuMsPerFlow[s]) : '', 14)}`,
      );
    console.log(
      `  ${pad('total without Chromium', 36)}${lpad(f1(inv.cpuMsPerFlowWithoutChromium), 14)}${lpad(at1 ? f1(at1.cpuMsPerFlowTotal) : '', 14)}`,
    );
    console.log(
      `  ${pad("less the bench's invoice reads", 36)}${lpad(f1(inv.cpuMsPerFlowWithoutChromiumAndReads), 14)}${lpad('(target)', 14)}`,
    );
    console.log(
      `  ${pad(`Chromium (${inv.chromiumProcesses.atEnd} processes at the end)`, 36)}${lpad(f1(inv.chromiumCpuMsPerFlow), 14)}`,
    );
    console.log(`  ${pad('total, Chromium included', 36)}${lpad(f1(inv.cpuMsPerFlowTotal), 14)}`);
    const st = inv.storeStatements;
    if (st)
      console.log(
        `  store statements per invoiced flow (services' counters over the phase and its settling ÷ flows): ${f1(st.perFlow)} (${byService(st)}; the bench's invoice reads about ${f1(inv.invoiceReadsPerFlow * (inv.invoiceRead?.statementsPerRead ?? NaN))}, idle timers about ${f2(st.idleBackgroundPerFlow)})`,
      );
  }

  const at8 = r.payFlow[8];
  const at1 = r.payFlow[1];
  const targets = [
    [
      'CPU per pay flow (8 buyers)',
      at8 ? `${f1(at8.cpuMsPerFlowTotal)} ms` : 'n/a',
      '<= 25 ms',
      at8 ? at8.cpuMsPerFlowTotal <= 25 : null,
    ],
    ['pay flows/s at 8 buyers', at8 ? f1(at8.flowsPerSecond) : 'n/a', '>= 60', at8 ? at8.flowsPerSecond >= 60 : null],
    ['pay flow p99 at 8 buyers', at8 ? `${f0(at8.p99)} ms` : 'n/a', '< 300 ms', at8 ? at8.p99 < 300 : null],
    [
      'pay flow p50 at 1 buyer / raw chain p50',
      at1 ? `${(at1.p50 / at1.chainUnloadedP50).toFixed(1)}x` : 'n/a',
      '<= 4x',
      at1 ? at1.p50 / at1.chainUnloadedP50 <= 4 : null,
    ],
    ['GET /sites vs raw chain (req/s)', pct(r.getSites.ratio), '>= 60 %', r.getSites.ratio >= 0.6],
    ['checkout create vs raw chain (req/s)', pct(r.createCheckout.ratio), '>= 40 %', r.createCheckout.ratio >= 0.4],
    ['idle mesh CPU', `${r.idle.totalPctOfCore.toFixed(2)} % of a core`, '< 1 %', r.idle.totalPctOfCore < 1],
    invoicedTarget(r),
    statementsTarget(r),
  ];
  r.targets = targets.map(([name, figure, target, met]) => ({ name, figure, target, met }));
  console.log('\ntargets');
  console.log(`  ${pad('target', 52)}${lpad('figure', 22)}${lpad('goal', 12)}  met`);
  for (const [name, figure, target, met] of targets)
    console.log(
      `  ${pad(name, 52)}${lpad(figure, 22)}${lpad(target, 12)}  ${met === null ? 'n/a' : met ? 'yes' : 'NO'}`,
    );

  if (r.profiles) {
    console.log(
      `\nCPU profiles (node --cpu-prof) of the ${PROFILE_BUYERS}-buyer phase: self time; the profiler's overhead is in this run's figures`,
    );
    for (const [name, p] of Object.entries(r.profiles)) {
      console.log(`  ${name}: ${p.busyMs} ms busy (${p.file})`);
      console.log(
        `    by package: ${p.packages
          .slice(0, 8)
          .map((x) => `${x.name} ${x.pct}%`)
          .join(', ')}`,
      );
      for (const fr of p.frames.slice(0, 10)) console.log(`    ${lpad(`${fr.pct}%`, 6)}  ${fr.name}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
