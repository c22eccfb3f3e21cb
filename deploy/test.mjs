#!/usr/bin/env node
// `pnpm test`: build (proto + TypeScript, which is the typecheck), typecheck of the tests, lint, then every vitest project
// (unit, integration, mesh). Ends with the plain summary line "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './local/supervisor.mjs';

function step(name, cmd, args) {
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  return r.status === 0;
}

const report = join(ROOT, '.run', 'vitest-report.json');
mkdirSync(join(ROOT, '.run'), { recursive: true });

if (!step('build + typecheck', 'pnpm', ['run', 'build'])) {
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}
const testTypesOk = step('typecheck tests', 'pnpm', ['exec', 'tsc', '-p', 'tsconfig.test.json']);
const formatOk = step('format', 'pnpm', ['exec', 'prettier', '--check', '--log-level', 'warn', '.']);
const lintOk = step('lint', 'pnpm', ['exec', 'eslint', '.', '--max-warnings=0']) && testTypesOk && formatOk;
const testsOk = step('tests', 'pnpm', [
  'exec',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
]);
// The images run Node.js 24 LTS (Dockerfile); this machine's Node.js may be another line, so the
// unit tests run once more on 24 (installed by `deploy/setup.sh --tests`). Missing, it fails.
const node24 = join(
  ROOT,
  '.run',
  'node24',
  'node_modules',
  `node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`,
  'bin',
  'node',
);
const node24Ok = existsSync(node24)
  ? step('unit tests on Node.js 24', node24, [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--project',
      'unit',
    ])
  : (console.log(`\n=== unit tests on Node.js 24: ${node24} is missing; run bash deploy/setup.sh --tests`), false);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = r.numFailedTests ?? 0;
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
}
if (!lintOk) failed += 1;
if (!node24Ok) failed += 1;
if (!testsOk && failed === 0) failed += 1;
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(lintOk && testsOk && node24Ok ? 0 : 1);
