#!/usr/bin/env node
// Soak: pay flows at a steady rate for N minutes while sampling the resident memory (RSS) of every
// mesh process; prints whether each stayed flat after warm-up: the median of the last third of
// the samples within 20 % of the median of the first third (medians, so one sample taken right
// after a garbage collection does not decide), and the largest sample.
//
//   node test/bench/soak.mjs [--rate 5] [--minutes 10] [--warmup-minutes 2] [--sample-seconds 10] [--tolerance 0.2]
//   node test/bench/soak.mjs --from .run/bench/soak-<timestamp>.json   (verdicts of a saved run)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/references.mjs';
import { startBenchMesh, payFlow, limitedLog } from './lib/bench-mesh.mjs';
import { rssMiB } from './lib/procs.mjs';
import { median, percentile } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '5' },
    minutes: { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string' },
    'sample-seconds': { type: 'string', default: '10' },
    tolerance: { type: 'string', default: '0.2' },
    'max-in-flight': { type: 'string', default: '64' },
    'log-level': { type: 'string', default: 'warn' },
    from: { type: 'string' },
  },
});
const RATE = Number(args.rate);
const MINUTES = Number(args.minutes);
const WARMUP_MIN = Number(args['warmup-minutes'] ?? Math.min(2, MINUTES * 0.2));
const SAMPLE_MS = Number(args['sample-seconds']) * 1000;
const TOLERANCE = Number(args.tolerance);
const MAX_IN_FLIGHT = Number(args['max-in-flight']);

const meshErrors = limitedLog('[mesh error]');
const flowErrors = limitedLog('[flow error]');
const log = (m) => console.log(`[soak] ${m}`);

/** Per process: RSS level early and late after warm-up, and whether it stayed within the tolerance. */
function verdicts(samples, warmupMinutes, tolerance) {
  const warm = samples.filter((s) => s.t >= warmupMinutes * 60);
  const third = Math.max(1, Math.floor(warm.length / 3));
  return Object.keys(samples[0]?.rss ?? {}).map((name) => {
    const values = warm.map((s) => s.rss[name]).filter(Number.isFinite);
    const early = median(values.slice(0, third));
    const late = median(values.slice(-third));
    const drift = (late - early) / early;
    return {
      service: name,
      startMiB: samples[0].rss[name],
      earlyMiB: early,
      lateMiB: late,
      maxMiB: Math.max(...values),
      drift,
      flat: values.length >= 3 && drift <= tolerance,
    };
  });
}

function printVerdicts(list, tolerance) {
  console.log(
    `  ${'process'.padEnd(22)}${'start'.padStart(8)}${'early'.padStart(8)}${'late'.padStart(8)}${'max'.padStart(8)}${'drift'.padStart(9)}  flat (<= ${tolerance * 100} %)`,
  );
  for (const v of list) {
    const mib = (n) => n.toFixed(0).padStart(8);
    console.log(
      `  ${v.service.padEnd(22)}${mib(v.startMiB)}${mib(v.earlyMiB)}${mib(v.lateMiB)}${mib(v.maxMiB)}${`${(v.drift * 100).toFixed(1)}%`.padStart(9)}  ${v.flat ? 'yes' : 'NO'}`,
    );
  }
}

async function main() {
  if (args.from) {
    const saved = JSON.parse(readFileSync(args.from, 'utf8'));
    const list = verdicts(saved.samples, Number(args['warmup-minutes'] ?? saved.warmupMinutes), TOLERANCE);
    console.log(
      `soak ${args.from}: ${saved.minutes} min at ${saved.rate} flows/s, ${saved.completed} flows, ${saved.failures} failed`,
    );
    printVerdicts(list, TOLERANCE);
    if (list.some((v) => !v.flat)) process.exitCode = 1;
    return;
  }
  log('starting the mesh...');
  const ctx = await startBenchMesh({ logLevel: args['log-level'], onError: meshErrors });
  const samples = []; // { t (s), rss: { service: MiB } }
  const latencies = [];
  let failures = 0;
  let skipped = 0;
  let inFlight = 0;
  let n = 0;
  const flows = new Set();
  try {
    const t0 = Date.now();
    const end = t0 + MINUTES * 60_000;
    const sample = () => {
      const rss = {};
      for (const [name, pid] of Object.entries(ctx.pids)) rss[name] = rssMiB(pid);
      samples.push({ t: (Date.now() - t0) / 1000, rss });
    };
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    // Open loop: a flow starts every 1/rate s whatever the previous ones do (bounded in flight, so
    // a stalled mesh shows up as skipped starts instead of unbounded memory in this process).
    const starter = setInterval(() => {
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped += 1;
        return;
      }
      inFlight += 1;
      const i = n++;
      const p = payFlow(ctx, i, i % 50)
        .then((flow) => latencies.push(flow.ms))
        .catch((err) => {
          failures += 1;
          flowErrors(`${i}: ${err instanceof Error ? err.message : err}`);
        })
        .finally(() => {
          inFlight -= 1;
          flows.delete(p);
        });
      flows.add(p);
    }, 1000 / RATE);
    const progress = setInterval(
      () =>
        log(
          `${Math.round((Date.now() - t0) / 1000)} s: ${latencies.length} flows done, ${failures} failed, ${inFlight} in flight`,
        ),
      60_000,
    );
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
    clearInterval(starter);
    await Promise.allSettled([...flows]);
    clearInterval(sampler);
    clearInterval(progress);
    sample();
  } finally {
    await ctx.stop();
  }

  const list = verdicts(samples, WARMUP_MIN, TOLERANCE);
  latencies.sort((a, b) => a - b);
  console.log(
    `\nsoak: ${MINUTES} min at ${RATE} flows/s (warm-up ${WARMUP_MIN} min, RSS sampled every ${SAMPLE_MS / 1000} s)`,
  );
  console.log(
    `  flows completed ${latencies.length}, failed ${failures}, starts skipped (>${MAX_IN_FLIGHT} in flight) ${skipped}; p50 ${percentile(latencies, 50)?.toFixed(0)} ms, p99 ${percentile(latencies, 99)?.toFixed(0)} ms`,
  );
  printVerdicts(list, TOLERANCE);
  const out = join(ROOT, '.run', 'bench', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ rate: RATE, minutes: MINUTES, warmupMinutes: WARMUP_MIN, completed: latencies.length, failures, skipped, verdicts: list, samples }, null, 2)}\n`,
  );
  console.log(`\nsamples written to ${out}`);
  if (list.some((v) => !v.flat)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
