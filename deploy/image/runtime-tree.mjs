#!/usr/bin/env node
// The files a service image runs from, taken out of a built and production-pruned checkout
// (`pnpm run build && pnpm install --prod`): package manifests, compiled `dist/` folders (without
// type declarations), installed dependencies, the hosted pages' build and messages, and the
// scripts the image runs besides the services (health check; compose's mesh certificate issuer and
// recurring processor timer). Never tests, sandboxes, docs or TypeScript sources.
//
//   node deploy/image/runtime-tree.mjs <root> <out>   copy the tree into <out> (the Dockerfile)
//   node deploy/image/runtime-tree.mjs <root> --plan  print the plan as JSON (the tests)
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Workspace folders whose packages run in the image (sandboxes/ are test doubles: never). */
export const PACKAGE_ROOTS = ['libs', 'services'];

/** Single files and folders the image needs outside the packages' dist/ and node_modules/. */
export const EXTRA_PATHS = [
  'package.json',
  'node_modules',
  'services/gateway-public/web/dist',
  'services/gateway-public/web/messages',
  'services/gateway-admin/web/dist',
  'deploy/image/healthcheck.mjs',
  'deploy/local/certs.mjs',
  'deploy/local/recurring-timer.mjs',
];

/** Path segments no runtime file may have outside node_modules/. */
export const FORBIDDEN_SEGMENTS = ['test', 'tests', 'sandboxes', 'docs', 'src', 'bench'];

/** Files of a dist/ folder the image leaves out: type declarations and compiled tests. */
export function keptInDist(path) {
  return !/\.d\.ts(\.map)?$/.test(path) && !/\.test\.js(\.map)?$/.test(path) && !path.endsWith('.tsbuildinfo');
}

/**
 * The plan: `{ path, kind }` entries relative to `root`, `kind` "dist" (copied through
 * {@link keptInDist}) or "copy" (as is, symlinks kept as they are).
 */
export function runtimePlan(root) {
  const plan = EXTRA_PATHS.map((path) => ({ path, kind: 'copy' }));
  for (const group of PACKAGE_ROOTS) {
    for (const name of readdirSync(join(root, group)).sort()) {
      const pkg = `${group}/${name}`;
      if (!existsSync(join(root, pkg, 'package.json'))) continue;
      plan.push({ path: `${pkg}/package.json`, kind: 'copy' });
      if (existsSync(join(root, pkg, 'dist'))) plan.push({ path: `${pkg}/dist`, kind: 'dist' });
      if (existsSync(join(root, pkg, 'node_modules'))) plan.push({ path: `${pkg}/node_modules`, kind: 'copy' });
    }
  }
  for (const { path } of plan) {
    const segments = path.split('/');
    const own = segments.includes('node_modules') ? segments.slice(0, segments.indexOf('node_modules')) : segments;
    const bad = own.find((seg) => FORBIDDEN_SEGMENTS.includes(seg));
    if (bad) throw new Error(`runtime tree: ${path} lies under a ${bad}/ folder`);
  }
  return plan;
}

/**
 * Copies the plan from `root` into `out`; throws when an entry is missing (the build is incomplete).
 * `opts.link`: plan paths to symlink instead of copying (tests link the big root node_modules).
 */
export function copyRuntimeTree(root, out, opts = {}) {
  const link = new Set(opts.link ?? []);
  for (const { path, kind } of runtimePlan(root)) {
    const from = join(root, path);
    if (!existsSync(from)) throw new Error(`runtime tree: ${path} is missing (was the checkout built?)`);
    const to = join(out, path);
    mkdirSync(dirname(to), { recursive: true });
    if (link.has(path)) {
      symlinkSync(resolve(from), to);
      continue;
    }
    cpSync(from, to, {
      recursive: true,
      verbatimSymlinks: true,
      filter:
        kind === 'dist'
          ? (src) => statSync(src).isDirectory() || keptInDist(relative(from, src).split(sep).join('/'))
          : undefined,
    });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [root, out] = process.argv.slice(2);
  if (!root || !out) {
    console.error('usage: runtime-tree.mjs <root> <out> | <root> --plan');
    process.exit(2);
  }
  if (out === '--plan') {
    console.log(JSON.stringify(runtimePlan(root), null, 2));
  } else {
    copyRuntimeTree(root, out);
    console.log(`runtime tree of ${root} copied to ${out}`);
  }
}
