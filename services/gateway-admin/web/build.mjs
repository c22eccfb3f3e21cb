#!/usr/bin/env node
// Builds the merchant dashboard (part of `pnpm build`): type-checks the app against the Admin API's
// generated types (test/support/admin-api.gen.ts, regenerated from the OpenAPI document: a changed
// route breaks this step), bundles it with Vite into dist/ (index.html and content-hashed assets
// under /app/assets/, served as immutable by gateway-admin), precompresses the assets and prints
// the first load's JavaScript size (gzip) against its 200 KB budget.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, brotliCompressSync, gzipSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(HERE, 'package.json'));
const { build } = await import(require.resolve('vite'));
const OUT = join(HERE, 'dist');
// The ICU parser, as intl-messageformat resolves it: it parses the message catalogues here, at build
// time, so the bundle carries their syntax trees and the parser's no-parser stand-in.
const requireFromFormatter = createRequire(require.resolve('intl-messageformat'));
const parserEntry = requireFromFormatter.resolve('@formatjs/icu-messageformat-parser');
const { parse, TYPE } = await import(parserEntry);
const noParser = join(dirname(parserEntry), 'lib', 'no-parser.js');
const MESSAGES = join(HERE, 'messages');
/** First-load JavaScript budget (gzip), from the dashboard issue's performance figures. */
const FIRST_LOAD_BUDGET = 200 * 1024;

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(HERE, 'tsconfig.json')], {
  stdio: 'inherit',
});

await build({
  root: HERE,
  base: '/app/',
  logLevel: 'warn',
  configFile: false,
  esbuild: { jsx: 'automatic', legalComments: 'none' },
  resolve: { alias: { '@formatjs/icu-messageformat-parser': noParser } },
  plugins: [
    {
      // messages/<lang>.json: the count messages (plural or number arguments) parsed as intl-messageformat
      // parses them (tags stay text); the others, text and {name} placeholders only, stay text.
      name: 'paymesh-precompiled-messages',
      enforce: 'pre',
      transform(code, id) {
        if (!id.startsWith(`${MESSAGES}/`) || !id.endsWith('.json')) return null;
        const catalogue = JSON.parse(code);
        const plain = (ast) => ast.every((el) => el.type === TYPE.literal || el.type === TYPE.argument);
        const parsed = Object.fromEntries(
          Object.entries(catalogue).map(([key, text]) => {
            const ast = parse(text, { ignoreTag: true });
            return [key, plain(ast) ? text : ast];
          }),
        );
        // Still JSON: Vite's own JSON step makes the module of it.
        return { code: JSON.stringify(parsed), map: null };
      },
    },
  ],
  build: {
    outDir: OUT,
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    // Nothing inlined as data: into scripts or the page (the CSP allows same-origin files).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      // React libraries mark modules "use client" (a server-components hint that means nothing in a browser bundle).
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' || warning.code === 'SOURCEMAP_ERROR') return;
        warn(warning);
      },
    },
  },
});

const assets = join(OUT, 'assets');
let firstLoad = 0;
const html = readFileSync(join(OUT, 'index.html'), 'utf8');
for (const file of readdirSync(assets)) {
  if (!/\.(js|css|svg)$/.test(file)) continue;
  const path = join(assets, file);
  const bytes = readFileSync(path);
  const gz = gzipSync(bytes, { level: 9 });
  writeFileSync(`${path}.gz`, gz);
  writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  // Scripts the page loads at once: those index.html links (entry and preloaded chunks).
  if (file.endsWith('.js') && html.includes(`/app/assets/${file}`)) firstLoad += gz.length;
}
if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html)) throw new Error('dashboard: index.html has an inline script');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  `dashboard: built into services/gateway-admin/web/dist; first-load JavaScript ${kb(firstLoad)} gzip (budget ${kb(FIRST_LOAD_BUDGET)})`,
);
if (firstLoad > FIRST_LOAD_BUDGET) {
  console.error(`dashboard: first-load JavaScript is over its budget of ${kb(FIRST_LOAD_BUDGET)}`);
  process.exit(1);
}
