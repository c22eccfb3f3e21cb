#!/usr/bin/env node
// Builds the buyer-facing pages' assets (part of `pnpm build`): type-checks the browser code, then
// bundles each page's script and stylesheet with esbuild into dist/assets under content-hashed
// names (served as immutable) and writes dist/manifest.json, which the gateway reads at start-up
// to link them from its HTML shells.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, brotliCompressSync, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(HERE, '..', 'package.json'));
const esbuild = require('esbuild');
const OUT = join(HERE, 'dist');

/** Pages: name -> script and stylesheet entry points. */
const PAGES = {
  checkout: { js: 'src/checkout/main.ts', css: 'src/checkout/checkout.css' },
  portal: { js: 'src/portal/main.ts', css: 'src/portal/portal.css' },
};

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(HERE, 'tsconfig.json')], {
  stdio: 'inherit',
});

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, 'assets'), { recursive: true });
const manifest = {};
for (const [page, entries] of Object.entries(PAGES)) {
  const result = await esbuild.build({
    absWorkingDir: HERE,
    entryPoints: [
      { in: entries.js, out: page },
      { in: entries.css, out: page },
    ],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    entryNames: '[name]-[hash]',
    outdir: join(OUT, 'assets'),
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`${page}: esbuild produced no script or stylesheet`);
  manifest[page] = { js, css };
  // Served as they are by @fastify/static (preCompressed) to clients that accept them.
  for (const file of [js, css]) {
    const path = join(OUT, 'assets', file);
    const bytes = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
    writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}
writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`web: built ${Object.keys(manifest).join(', ')} into ${join('services/gateway-public/web/dist')}`);
