#!/usr/bin/env node
// `pnpm bootstrap`: creates an organization, its Admin user, a site and a full-scope API key on
// the running mesh and prints one JSON object.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap } from './bootstrap-lib.mjs';
import { localSystemKey, RUN_DIR } from './system-key.mjs';

const meshFile = join(RUN_DIR, 'mesh.json');
const mesh = existsSync(meshFile) ? JSON.parse(readFileSync(meshFile, 'utf8')) : {};
const adminBaseUrl = process.env.ADMIN_BASE_URL ?? mesh.adminBaseUrl ?? 'http://127.0.0.1:8080/api/v1';
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? mesh.publicBaseUrl ?? 'http://127.0.0.1:8081/api/v1';
const systemApiKey = process.env.SYSTEM_API_KEY ?? localSystemKey();

try {
  const out = await bootstrap({ adminBaseUrl, publicBaseUrl, systemApiKey });
  console.log(JSON.stringify(out, null, 2));
} catch (err) {
  console.error(`bootstrap failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error('Is the mesh running (`pnpm start`)? Is SYSTEM_API_KEY the one gateway-admin was started with?');
  process.exit(1);
}
