#!/usr/bin/env node
// `pnpm bench:documents`: PDFs per second and latency of the documents service's RenderInvoicePdf
// (gRPC -> page pool of one warm Chromium -> blob store), beside bare puppeteer rendering the same
// HTML with the same Chromium and the same number of pages, in the same run on the same machine.
// While the service renders, a probe calls its Describe RPC every 50 ms: its latency under load
// beside idle shows whether rendering blocks the service's other requests (it must not).
// Then e-invoice XML written and validated per second (RenderEInvoice: XRechnung UBL, Peppol BIS
// UBL, Factur-X CII) beside the service's Describe round trip (the gRPC floor).
// See docs/performance.md.
//
//   pnpm bench:documents [--seconds 10] [--concurrency 4] [--log-level warn] [--out file]
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/references.mjs';
import { startBenchMesh, limitedLog } from './lib/bench-mesh.mjs';
import { percentile } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '4' },
    'log-level': { type: 'string', default: 'warn' },
    out: { type: 'string' },
  },
});
const SECONDS = Math.max(2, Number(args.seconds));
const CONCURRENCY = Math.max(1, Number(args.concurrency));
const log = (msg) => console.log(`[bench:documents] ${msg}`);
const meshErrors = limitedLog('[mesh error]');
const require = createRequire(join(ROOT, 'services/documents/package.json'));
const grpcLib = require(join(ROOT, 'libs/grpc/dist/index.js'));
const { documents } = require(join(ROOT, 'libs/proto/dist/index.js'));
const { renderHtml } = require(join(ROOT, 'services/documents/dist/render/templates.js'));
const puppeteer = require('puppeteer-core');

/** A reverse-charge invoice with a dozen lines: a typical one-page B2B invoice. */
function view(n) {
  const lines = Array.from({ length: 12 }, (_, i) => ({
    description: `Consulting block ${i + 1}`,
    quantity: 1 + (i % 3),
    unitPrice: 12_000 + i * 100,
    net: (1 + (i % 3)) * (12_000 + i * 100),
    tax: 0,
    gross: (1 + (i % 3)) * (12_000 + i * 100),
    taxRate: 0,
    decision: 'reverse_charge',
  }));
  const net = lines.reduce((a, l) => a + l.net, 0);
  return {
    kind: 'invoice',
    number: `INV-2027-${String(n).padStart(5, '0')}`,
    issueDate: '2027-03-01',
    dueDate: '2027-03-15',
    servicePeriod: { start: '2027-02-01', end: '2027-02-28' },
    currency: 'EUR',
    seller: {
      name: 'Muster Software GmbH',
      address: { street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', country: 'DE' },
      email: 'billing@muster.example',
      vatId: 'DE123456789',
      iban: 'DE89370400440532013000',
    },
    buyer: {
      name: 'Société Exemple SARL',
      address: { street: '12 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' },
      email: null,
      vatId: 'FR40303265045',
    },
    lines,
    taxBreakdown: [{ taxRate: 0, taxRateCode: 'RC', taxableBase: net, taxAmount: 0 }],
    totals: { net, tax: 0, gross: net },
    paymentTermsDays: 14,
    invoiceNumber: null,
    remarks: 'Thank you for your business.',
  };
}

/** A domestic German B2B invoice with two lines, as billing sends it to RenderEInvoice. */
function einvoiceDocument(n) {
  const lines = [
    { id: '1', description: 'Consulting, March', quantity: 3, net: 30_000, tax: 5_700, taxRate: 19, category: 'S' },
    { id: '2', description: 'Licence', quantity: 1, net: 4_999, tax: 950, taxRate: 19, category: 'S' },
  ];
  return {
    kind: 'invoice',
    number: `INV-2027-${String(n).padStart(5, '0')}`,
    issueDate: '2027-03-01',
    dueDate: '2027-03-15',
    servicePeriod: { start: '2027-02-01', end: '2027-02-28' },
    currency: 'EUR',
    buyerReference: `INV-2027-${String(n).padStart(5, '0')}`,
    precedingInvoice: null,
    seller: {
      name: 'Muster Software GmbH',
      address: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      email: 'billing@muster.example',
      phone: '+49 30 1234567',
      vatId: 'DE136695976',
      endpoint: { schemeId: '9930', value: 'DE136695976' },
      iban: 'DE89370400440532013000',
    },
    buyer: {
      name: 'Käufer AG',
      address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
      email: 'rechnung@kaeufer.example',
      phone: null,
      vatId: 'DE129273398',
      endpoint: { schemeId: '9930', value: 'DE129273398' },
    },
    lines,
    totals: { net: 34_999, tax: 6_650, gross: 41_649 },
    paymentTerms: 'Payable within 14 days, by 2027-03-15.',
    note: null,
  };
}

/** Runs `once` in `concurrency` loops for `seconds`; rate, latency percentiles and failures by kind. */
async function load(seconds, concurrency, once) {
  const latencies = [];
  const failures = {};
  let n = 0;
  const end = Date.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          await once(n++);
          latencies.push(performance.now() - t0);
        } catch (err) {
          const kind = String(err?.code ?? err?.message ?? err).slice(0, 60);
          failures[kind] = (failures[kind] ?? 0) + 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    done: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
  };
}

/** Describe every 50 ms until stopped: the latency of a cheap request beside the renders. */
function probe(describe) {
  const latencies = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      await describe().catch(() => undefined);
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    running = false;
    await done;
    latencies.sort((a, b) => a - b);
    return { samples: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  };
}

function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Bare puppeteer: one browser, `pages` pages, setContent + pdf of the same HTML. */
async function bareChromium(seconds, pages, html) {
  const profile = await mkdtemp(join(tmpdir(), 'bench-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${profile}`],
  });
  try {
    const pool = await Promise.all(Array.from({ length: pages }, () => browser.newPage()));
    const free = [...pool];
    const waiters = [];
    const take = () => (free.length ? Promise.resolve(free.pop()) : new Promise((r) => waiters.push(r)));
    const give = (p) => (waiters.length ? waiters.shift()(p) : free.push(p));
    const once = async () => {
      const page = await take();
      try {
        await page.setContent(html, { waitUntil: 'load' });
        await page.pdf({ format: 'A4', printBackground: true });
      } finally {
        give(page);
      }
    };
    for (let i = 0; i < 3; i++) await once();
    return await load(seconds, CONCURRENCY, once);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}

async function main() {
  const os = await import('node:os');
  const result = {
    startedAt: new Date().toISOString(),
    host: { cpus: os.cpus().length, node: process.version, loadAvgAtStart: os.loadavg() },
    concurrency: CONCURRENCY,
    seconds: SECONDS,
  };
  let ctx;
  try {
    log('starting the mesh');
    ctx = await startBenchMesh({ logLevel: args['log-level'], onError: meshErrors });
    const { mesh } = ctx;
    const pagesInService = Number(mesh.env.PDF_PAGES ?? process.env.PDF_PAGES ?? 2);
    const client = grpcLib.makeClient(
      documents.DocumentsServiceClient,
      mesh.env.DOCUMENTS_GRPC_ADDR,
      mesh.clientSecurity,
    );
    const cfg = { deadlineMs: 30_000, target: 'documents' };
    const render = (n) =>
      grpcLib.call(
        client,
        client.renderInvoicePdf,
        {
          organizationId: '65f000000000000000000001',
          testMode: true,
          documentId: `65f0000000000000${String(n % 1000).padStart(8, '0')}`,
          snapshotVersion: '1',
          regenerate: true,
          bodyJson: JSON.stringify(view(n)),
        },
        cfg,
      );
    const describe = () => grpcLib.call(client, client.describe, {}, { deadlineMs: 5_000, target: 'documents' });
    const docsPid = ctx.pids.documents ?? mesh.pids().documents;

    log('warming the browser');
    for (let i = 0; i < 4; i++) {
      const res = await render(i);
      if (!Buffer.from(res.pdf).subarray(0, 5).equals(Buffer.from('%PDF-')))
        throw new Error('RenderInvoicePdf did not answer a PDF');
    }
    const stopIdle = probe(describe);
    await new Promise((r) => setTimeout(r, 2_000));
    result.describeIdle = await stopIdle();
    result.rssBeforeMb = rssMb(docsPid);

    log(`service: ${CONCURRENCY} callers for ${SECONDS} s (service pages: ${pagesInService})`);
    const stopBusy = probe(describe);
    result.service = await load(SECONDS, CONCURRENCY, render);
    result.describeUnderLoad = await stopBusy();
    result.rssAfterMb = rssMb(docsPid);

    log(`reference: bare puppeteer, ${pagesInService} pages, ${CONCURRENCY} callers for ${SECONDS} s`);
    result.reference = await bareChromium(SECONDS, pagesInService, renderHtml(view(1)));
    result.ratio = result.service.perSecond / result.reference.perSecond;

    const xmlSeconds = Math.max(2, Math.round(SECONDS / 2));
    log(`e-invoice XML: ${CONCURRENCY} callers, ${xmlSeconds} s per format, beside Describe`);
    result.describe = await load(xmlSeconds, CONCURRENCY, describe);
    result.xml = {};
    for (const format of ['xrechnung', 'peppol', 'zugferd']) {
      const write = async (n) => {
        const res = await grpcLib.call(
          client,
          client.renderEInvoice,
          {
            organizationId: '65f000000000000000000001',
            testMode: true,
            bodyJson: JSON.stringify({ format, output: 'xml', document: einvoiceDocument(n) }),
          },
          cfg,
        );
        const report = JSON.parse(res.reportJson);
        if (!report.valid) throw new Error(`${format}: invalid (${report.errors} errors)`);
      };
      await write(0);
      result.xml[format] = await load(xmlSeconds, CONCURRENCY, write);
    }
    result.meshErrorLines = meshErrors.count;
    client.close();
  } finally {
    await ctx?.stop();
  }
  result.host.loadAvgAtEnd = os.loadavg();
  const f1 = (n) => (n ?? 0).toFixed(1);
  const row = (name, r) =>
    `  ${name.padEnd(34)} ${f1(r.perSecond).padStart(6)} PDFs/s  p50 ${f1(r.p50)} ms  p99 ${f1(r.p99)} ms  (${r.done} done${Object.keys(r.failures).length ? `, failures ${JSON.stringify(r.failures)}` : ''})`;
  console.log(`\nPDF rendering, ${CONCURRENCY} callers, ${SECONDS} s each`);
  console.log(row('bare puppeteer (same HTML, pages)', result.reference));
  console.log(row('documents RenderInvoicePdf', result.service));
  console.log(`  ratio service / bare puppeteer: ${result.ratio.toFixed(2)}`);
  console.log(
    `  Describe beside the renders: p50 ${f1(result.describeUnderLoad.p50)} ms, p99 ${f1(result.describeUnderLoad.p99)} ms (idle: p50 ${f1(result.describeIdle.p50)} ms, p99 ${f1(result.describeIdle.p99)} ms)`,
  );
  console.log(`\ne-invoice XML written and checked (RenderEInvoice), ${CONCURRENCY} callers`);
  const xrow = (name, r) =>
    `  ${name.padEnd(34)} ${f1(r.perSecond).padStart(6)} /s      p50 ${f1(r.p50)} ms  p99 ${f1(r.p99)} ms  (${r.done} done${Object.keys(r.failures).length ? `, failures ${JSON.stringify(r.failures)}` : ''})`;
  console.log(xrow('Describe (gRPC round trip)', result.describe));
  for (const [format, r] of Object.entries(result.xml))
    console.log(`${xrow(format, r)}  ratio to Describe ${(r.perSecond / result.describe.perSecond).toFixed(3)}`);
  console.log(
    `  documents RSS: ${result.rssBeforeMb} MB before, ${result.rssAfterMb} MB after; mesh error lines ${result.meshErrorLines}`,
  );
  const out = args.out ?? join(ROOT, '.run', 'bench', `documents-${result.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresults written to ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
