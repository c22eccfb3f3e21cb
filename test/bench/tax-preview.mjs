#!/usr/bin/env node
// `pnpm bench:tax-preview`: requests per second of the buyer's tax preview
// (POST /api/v1/checkouts/:id/tax-preview: gateway-public -> checkout -> tax, VIES answered from
// the tax service's cache) beside a bare Fastify server answering a JSON body, in the same run on
// the same machine. See docs/performance.md.
//
//   pnpm bench:tax-preview [--seconds 12] [--rounds 3] [--connections 10] [--mode vies|format]
//                          [--log-level warn] [--out file]
//
// `--mode vies` (default when the VIES sandbox runs): the site checks VAT IDs against VIES and the
// buyer sends a VIES-valid VAT ID, checked once before the measurement so every measured request
// is a VIES cache hit; `format`: format check only (no VIES).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, httpLoad, startHelper } from './lib/references.mjs';
import { startBenchMesh, limitedLog } from './lib/bench-mesh.mjs';
import { median } from './lib/stats.mjs';
import { cpuDelta, cpuSnapshot } from './lib/procs.mjs';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    mode: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    out: { type: 'string' },
  },
});
const ROUNDS = Math.max(1, Number(args.rounds));
const SLICE = Math.max(1, Math.round(Number(args.seconds) / ROUNDS));
const CONNECTIONS = Number(args.connections);
const VIES_VALID = { country: 'FR', vatId: 'FR47759777570' };
const log = (msg) => console.log(`[bench:tax-preview] ${msg}`);
const meshErrors = limitedLog('[mesh error]');

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

/** Means of the rounds' rates, median p50, worst p99. */
function merge(rounds) {
  return {
    rps: rounds.reduce((a, r) => a + r.rps, 0) / rounds.length,
    p50: median(rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    requests: rounds.reduce((a, r) => a + r.requests, 0),
    failed: rounds.reduce((a, r) => a + r.failed, 0),
    rounds: rounds.map((r) => Math.round(r.rps)),
  };
}

async function main() {
  const os = await import('node:os');
  const result = {
    startedAt: new Date().toISOString(),
    host: { cpus: os.cpus().length, node: process.version, loadAvgAtStart: os.loadavg() },
  };
  const reference = await startHelper('json-echo.mjs');
  let ctx;
  try {
    log('starting the mesh');
    ctx = await startBenchMesh({ logLevel: args['log-level'], onError: meshErrors });
    const { mesh, boot } = ctx;
    const viesRuns = Boolean(mesh.sandboxUrls['sandbox-vies']);
    const mode = args.mode ?? (viesRuns ? 'vies' : 'format');
    if (mode === 'vies' && !viesRuns) throw new Error('--mode vies needs the VIES sandbox (sandboxes/vies, built)');
    if (mode === 'format')
      log(
        viesRuns ? 'format mode as asked (no VIES)' : 'the VIES sandbox is not built: measuring format mode (no VIES)',
      );
    const admin = mesh.adminBaseUrl;
    await call('PUT', `${admin}/organizations/settings/tax`, {
      token: boot.apiKey,
      body: { homeCountry: 'DE', ossEnabled: true, viesEnabled: mode === 'vies' },
    });
    await call('PUT', `${admin}/sites/${boot.siteId}`, {
      token: boot.apiKey,
      body: { checkoutSettings: { vatIdValidation: mode } },
    });
    const checkout = await call('POST', `${admin}/checkouts/${boot.siteId}/create`, {
      token: boot.apiKey,
      body: {
        amount: 12500,
        currency: 'EUR',
        externalReference: 'bench-tax',
        items: [
          { name: 'Pro plan', quantity: 2, unitPrice: 5000, itemType: 'digital_service' },
          { name: 'Setup', quantity: 1, unitPrice: 2500, itemType: 'service' },
        ],
      },
    });
    const url = `${mesh.publicBaseUrl}/checkouts/${checkout.sessionPublicId}/tax-preview`;
    const body = JSON.stringify({ billingAddress: VIES_VALID });
    // Warms the VIES cache (vies mode) and shows what is measured.
    const first = await call('POST', url, { body: JSON.parse(body) });
    log(
      `preview: buyer ${first.buyer.type}, VAT ID ${first.buyer.vatIdStatus}, total tax ${first.totalTax} of ${first.totalGross}`,
    );
    if (mode === 'vies' && first.buyer.vatIdStatus !== 'valid')
      throw new Error(`VIES did not confirm ${VIES_VALID.vatId}: ${first.buyer.vatIdTreatment}`);
    const second = await call('POST', url, { body: JSON.parse(body) });
    result.setup = { mode, vatIdStatus: second.buyer.vatIdStatus, vatIdTreatment: second.buyer.vatIdTreatment };

    const load = (target) =>
      httpLoad({
        url: target,
        method: 'POST',
        connections: CONNECTIONS,
        seconds: SLICE,
        headers: { 'content-type': 'application/json' },
        body,
      });
    const refUrl = `http://127.0.0.1:${reference.info.port}/`;
    // The buyer's read of the same session (gateway -> checkout, no tax): what the tax part adds.
    const viewUrl = `${mesh.publicBaseUrl}/checkouts/${checkout.sessionPublicId}`;
    const viewLoad = () => httpLoad({ url: viewUrl, connections: CONNECTIONS, seconds: SLICE, cpuPids: ctx.pids });
    await load(refUrl);
    await load(url);
    const refRounds = [];
    const routeRounds = [];
    const viewRounds = [];
    const cpu = {};
    for (let i = 0; i < ROUNDS; i++) {
      log(`round ${i + 1}/${ROUNDS}`);
      refRounds.push(await load(refUrl));
      viewRounds.push(await viewLoad());
      const before = cpuSnapshot(ctx.pids);
      routeRounds.push(await load(url));
      for (const [name, ms] of Object.entries(cpuDelta(before, cpuSnapshot(ctx.pids))))
        cpu[name] = (cpu[name] ?? 0) + ms;
    }
    result.reference = merge(refRounds);
    result.checkoutView = {
      ...merge(viewRounds),
      cpuMsPerRequest: viewRounds.reduce((a, r) => a + r.cpuMsPerRequest, 0) / viewRounds.length,
    };
    result.taxPreview = merge(routeRounds);
    // CPU per answered preview, per mesh process (more robust than req/s on a shared machine).
    const answered = routeRounds.reduce((a, r) => a + r.rps * SLICE, 0);
    result.taxPreview.cpuMsPerRequest = Object.fromEntries(
      Object.entries(cpu)
        .filter(([, ms]) => ms / answered >= 0.01)
        .sort((a, b) => b[1] - a[1])
        .map(([name, ms]) => [name, Math.round((ms / answered) * 100) / 100]),
    );
    result.ratio = result.taxPreview.rps / result.reference.rps;
    result.meshErrorLines = meshErrors.count;
  } finally {
    await ctx?.stop();
    await reference.stop();
  }
  result.host.loadAvgAtEnd = os.loadavg();
  const f0 = (n) => n.toFixed(0);
  const f1 = (n) => n.toFixed(1);
  console.log(
    `\ntax preview (${result.setup.mode} mode, VAT ID ${result.setup.vatIdStatus}), ${CONNECTIONS} connections, ${ROUNDS} x ${SLICE} s alternating`,
  );
  console.log(
    `  bare Fastify JSON POST      ${f0(result.reference.rps).padStart(7)} req/s  p50 ${f1(result.reference.p50)} ms  p99 ${f1(result.reference.p99)} ms  rounds ${result.reference.rounds.join('/')}`,
  );
  console.log(
    `  POST checkouts/:id/tax-preview ${f0(result.taxPreview.rps).padStart(4)} req/s  p50 ${f1(result.taxPreview.p50)} ms  p99 ${f1(result.taxPreview.p99)} ms  rounds ${result.taxPreview.rounds.join('/')}`,
  );
  console.log(
    `  GET checkouts/:id (no tax)     ${f0(result.checkoutView.rps).padStart(4)} req/s  p50 ${f1(result.checkoutView.p50)} ms  p99 ${f1(result.checkoutView.p99)} ms  rounds ${result.checkoutView.rounds.join('/')}`,
  );
  console.log(
    `  ratio tax preview / bare Fastify: ${result.ratio.toFixed(3)}; tax preview / checkout view: ${(result.taxPreview.rps / result.checkoutView.rps).toFixed(2)}`,
  );
  const perProcess = Object.entries(result.taxPreview.cpuMsPerRequest);
  const total = perProcess.reduce((a, [, ms]) => a + ms, 0);
  console.log(
    `  CPU ms per preview: ${total.toFixed(2)} (${perProcess.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')}); per checkout view: ${result.checkoutView.cpuMsPerRequest.toFixed(2)}`,
  );
  console.log(
    `  failures: reference ${result.reference.failed}, checkout view ${result.checkoutView.failed}, tax preview ${result.taxPreview.failed}; mesh error lines ${result.meshErrorLines}`,
  );
  const out = args.out ?? join(ROOT, '.run', 'bench', `tax-preview-${result.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresults written to ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
