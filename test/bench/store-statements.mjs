#!/usr/bin/env node
// Counts the datastore statements one pay flow costs across the mesh (a script, not a test), from
// the store's own counters, so it works where pg_stat_statements is not loaded. Runs the bench mesh
// twice, with a few and with more sequential pay flows; every service logs its store's statement
// counter (`store.stats()`) as "store statements" when it stops. The difference between the two
// runs, divided by the difference in flows, is the per-flow count without start-up and bootstrap.
//
//   node test/bench/store-statements.mjs [--few 5] [--many 25]
import { parseArgs } from 'node:util';
import { startBenchMesh, payFlowLoad } from './lib/bench-mesh.mjs';

const { values: args } = parseArgs({
  options: { few: { type: 'string', default: '5' }, many: { type: 'string', default: '25' } },
});

/** One mesh, `flows` sequential pay flows; returns the statements each service counted. */
async function run(flows) {
  const stats = {};
  const ctx = await startBenchMesh({
    logLevel: 'info',
    onLine: (svc, line) => {
      if (!line.includes('"store statements"')) return;
      stats[svc] = JSON.parse(line.slice(line.indexOf('{'))).storeStats.statements;
    },
  });
  try {
    const load = await payFlowLoad(ctx, { buyers: 1, seconds: 3600, maxFlows: flows });
    if (load.failures > 0) throw new Error(`${load.failures} of ${flows} pay flows failed`);
  } finally {
    await ctx.stop();
  }
  return stats;
}

const few = Number(args.few);
const many = Number(args.many);
const a = await run(few);
const b = await run(many);
console.log(`\nstore statements per pay flow ((${many}-flow run - ${few}-flow run) / ${many - few})`);
let total = 0;
for (const svc of Object.keys(b).sort()) {
  const perFlow = ((b[svc] ?? 0) - (a[svc] ?? 0)) / (many - few);
  total += perFlow;
  console.log(`  ${svc.padEnd(20)} ${perFlow.toFixed(1)}`);
}
console.log(`  ${'total'.padEnd(20)} ${total.toFixed(1)}`);
