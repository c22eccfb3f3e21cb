#!/usr/bin/env node
// Generates TypeScript gRPC stubs from proto/ into libs/proto/src/gen with ts-proto.
// protoc comes from the `protoc` npm package (its binaries ship inside the package).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const protoDir = join(root, 'proto');
const outDir = join(root, 'libs/proto/src/gen');
const require = createRequire(join(root, 'libs/proto/package.json'));

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.proto') ? [p] : [];
  });
}

const files = walk(protoDir)
  .map((f) => relative(protoDir, f))
  .sort();
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const protoc = require.resolve('protoc/protoc.cjs');
const plugin = join(dirname(require.resolve('ts-proto/package.json')), 'protoc-gen-ts_proto');
const opts = [
  'outputServices=grpc-js',
  'esModuleInterop=true',
  'env=node',
  'forceLong=number',
  'useOptionals=none',
  'oneof=unions',
  'useExactTypes=false',
  'outputIndex=false',
].join(',');

execFileSync(
  process.execPath,
  [
    protoc,
    `--plugin=protoc-gen-ts_proto=${plugin}`,
    `--ts_proto_out=${outDir}`,
    `--ts_proto_opt=${opts}`,
    `-I${protoDir}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
writeFileSync(join(outDir, '.generated'), `generated from ${files.length} proto files; do not edit\n`);
console.log(`proto: generated ${files.length} files into ${relative(root, outDir)}`);
