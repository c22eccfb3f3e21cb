#!/usr/bin/env node
// `pnpm bootstrap`: creates an organization, its Admin user, a site, a full-scope API key and,
// for each provider sandbox that runs, a provider record on the running mesh; prints one JSON object
// (with the VIES sandbox's URL and the VAT numbers to try, and the mail catcher's web view, when they run).
// The organization is set up for a walk-through: tax settings of a German seller, automatic invoices
// for paid checkouts and the buyer portal on (`portalUrl`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyWalkthrough, bootstrap, mailSandboxInfo, viesSandboxInfo } from './bootstrap-lib.mjs';
import { localSystemKey, RUN_DIR } from './system-key.mjs';

const meshFile = join(RUN_DIR, 'mesh.json');
const mesh = existsSync(meshFile) ? JSON.parse(readFileSync(meshFile, 'utf8')) : {};
const adminBaseUrl = process.env.ADMIN_BASE_URL ?? mesh.adminBaseUrl ?? 'http://127.0.0.1:8080/api/v1';
const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? mesh.publicBaseUrl ?? 'http://127.0.0.1:8081/api/v1';
const systemApiKey = process.env.SYSTEM_API_KEY ?? localSystemKey();
const dashboardUrl = process.env.DASHBOARD_URL ?? mesh.dashboardUrl ?? 'http://localhost:8080/app/';

/** Whether a sandbox answers its health check (mesh.json may be left over from an earlier run). */
async function healthy(url) {
  try {
    return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(1500) })).ok;
  } catch {
    return false;
  }
}

try {
  const sandboxUrl = process.env.PROVIDER_A_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-provider-a'];
  const providerASandboxUrl = sandboxUrl && (await healthy(sandboxUrl)) ? sandboxUrl : undefined;
  const bUrl = process.env.PROVIDER_B_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-provider-b'];
  const providerBSandboxUrl = bUrl && (await healthy(bUrl)) ? bUrl : undefined;
  const cUrl = process.env.PROVIDER_C_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-provider-c'];
  const providerCSandboxUrl = cUrl && (await healthy(cUrl)) ? cUrl : undefined;
  const dUrl = process.env.PROVIDER_D_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-provider-d'];
  const providerDSandboxUrl = dUrl && (await healthy(dUrl)) ? dUrl : undefined;
  const out = await bootstrap({
    adminBaseUrl,
    publicBaseUrl,
    systemApiKey,
    dashboardUrl,
    ...(providerASandboxUrl ? { providerASandboxUrl } : {}),
    ...(providerBSandboxUrl ? { providerBSandboxUrl } : {}),
    ...(providerCSandboxUrl ? { providerCSandboxUrl } : {}),
    ...(providerDSandboxUrl ? { providerDSandboxUrl } : {}),
  });
  // A demo merchant a newcomer can walk end to end: German seller (VAT, OSS and VIES on), paid
  // checkouts invoiced automatically, and the buyer portal (with magic links) turned on.
  const { portalUrl } = await applyWalkthrough({
    adminBaseUrl,
    publicBaseUrl,
    apiKey: out.apiKey,
    organizationId: out.organizationId,
  });
  out.portalUrl = portalUrl;
  const viesUrl = process.env.VIES_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-vies'];
  if (viesUrl && (await healthy(viesUrl))) out.vies = await viesSandboxInfo(viesUrl);
  const mailUrl = process.env.MAIL_SANDBOX_URL ?? mesh.sandboxUrls?.['sandbox-mail'];
  if (mailUrl && (await healthy(mailUrl))) out.mail = mailSandboxInfo(mailUrl, mesh.mailSmtpPort);
  console.log(JSON.stringify(out, null, 2));
} catch (err) {
  console.error(`bootstrap failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error('Is the mesh running (`pnpm start`)? Is SYSTEM_API_KEY the one gateway-admin was started with?');
  process.exit(1);
}
