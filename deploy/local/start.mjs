#!/usr/bin/env node
// `pnpm start`: builds if needed, starts every service and sandbox in the foreground with
// prefixed logs, waits until all are healthy, prints the base URLs, stops cleanly on Ctrl-C.
import { execSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { preflight } from './preflight.mjs';
import { ROOT, startMesh, BACKENDS, GATEWAYS } from './supervisor.mjs';
import { localSystemKey, RUN_DIR } from './system-key.mjs';
import { recurringIntervalMs, startRecurringTimer } from './recurring-timer.mjs';

const COLORS = [31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96];
const pretty = process.stdout.isTTY;

function needsBuild() {
  const mains = [...BACKENDS, ...GATEWAYS].map(([n]) => join(ROOT, 'services', n, 'dist/main.js'));
  if (mains.some((m) => !existsSync(m))) return true;
  if (!existsSync(join(ROOT, 'libs/proto/src/gen/.generated'))) return true;
  const builtAt = Math.min(...mains.map((m) => statSync(m).mtimeMs));
  try {
    const newest = execSync(
      `git -C "${ROOT}" ls-files -z -- '*.ts' '*.proto' | xargs -0 stat -c %Y 2>/dev/null | sort -n | tail -1`,
      {
        encoding: 'utf8',
      },
    ).trim();
    return Number(newest) * 1000 > builtAt;
  } catch {
    return false;
  }
}

/**
 * The local run opts into development explicitly (services default to production): NODE_ENV,
 * the published development secrets (PAYMESH_DEV_DEFAULTS) and IPN to receivers on this machine.
 * `NODE_ENV=production pnpm start` gets none of these.
 */
function localRunEnv(env) {
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv === 'production') return { NODE_ENV: nodeEnv };
  return {
    NODE_ENV: nodeEnv,
    PAYMESH_DEV_DEFAULTS: env.PAYMESH_DEV_DEFAULTS ?? 'true',
    IPN_ALLOWED_TARGETS: env.IPN_ALLOWED_TARGETS ?? '127.0.0.1,::1,localhost',
  };
}

async function main() {
  const problems = await preflight(process.env);
  if (problems.length) {
    console.error(`Cannot start the mesh:\n\n${problems.join('\n\n')}\n`);
    process.exit(1);
  }
  if (needsBuild()) {
    console.log('building...');
    execSync('pnpm run build', { cwd: ROOT, stdio: 'inherit' });
  }
  const systemApiKey = process.env.SYSTEM_API_KEY ?? localSystemKey();
  const recurringEveryMs = recurringIntervalMs(process.env);
  const width = Math.max(...[...BACKENDS, ...GATEWAYS].map(([n]) => n.length), 'sandbox-provider-a'.length);
  const colorOf = new Map();
  let stopping = false;
  const onLine = (svc, line) => {
    if (!colorOf.has(svc)) colorOf.set(svc, COLORS[colorOf.size % COLORS.length]);
    const label = svc.padEnd(width);
    process.stdout.write(pretty ? `\x1b[${colorOf.get(svc)}m${label}\x1b[0m | ${line}\n` : `${label} | ${line}\n`);
  };
  const abort = new AbortController();
  let mesh;
  const shutdown = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping all services...`);
    abort.abort();
    if (mesh) await mesh.stop();
    console.log('stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
  // `pnpm start` does not forward SIGTERM: when pnpm goes away, stop the mesh too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown('parent exited');
  }, 1000).unref();

  console.log('starting services...');
  try {
    mesh = await startMesh({
      signal: abort.signal,
      env: { SYSTEM_API_KEY: systemApiKey, ...localRunEnv(process.env) },
      onLine,
      onExit: (svc, code, signal) => {
        if (!stopping) console.error(`${svc} exited unexpectedly (${code ?? signal})`);
      },
    });
  } catch (err) {
    if (stopping) return;
    stopping = true;
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  }
  const info = {
    adminBaseUrl: mesh.adminBaseUrl,
    publicBaseUrl: mesh.publicBaseUrl,
    publicRootUrl: mesh.publicRootUrl,
    checkoutFrontendUrl: mesh.checkoutFrontendUrl,
    dashboardUrl: mesh.dashboardUrl,
    sandboxUrls: mesh.sandboxUrls,
    ...(mesh.env.MAIL_SANDBOX_SMTP_PORT ? { mailSmtpPort: Number(mesh.env.MAIL_SANDBOX_SMTP_PORT) } : {}),
  };
  writeFileSync(join(RUN_DIR, 'mesh.json'), JSON.stringify(info, null, 2));
  console.log(`\nAll ${mesh.services.length} processes are healthy.`);
  console.log(`  Dashboard:    ${mesh.dashboardUrl}   (sign in with the enrollment link \`pnpm bootstrap\` prints)`);
  console.log(`  Admin API:    ${mesh.adminBaseUrl}   (docs: ${mesh.adminBaseUrl}/docs/index.html)`);
  console.log(`  Main Backend: ${mesh.publicBaseUrl}   (webhooks: ${mesh.publicRootUrl}/hooks/...)`);
  console.log(`  Checkout:     ${mesh.checkoutFrontendUrl}/c/<sessionPublicId>   (the paymentUrl of every checkout)`);
  for (const [name, url] of Object.entries(mesh.sandboxUrls)) {
    if (name === 'sandbox-mail')
      console.log(
        `  Mail catcher: ${url}   (every e-mail sent lands here; SMTP on 127.0.0.1:${mesh.env.MAIL_SANDBOX_SMTP_PORT})`,
      );
    else console.log(`  ${name}: ${url}`);
  }
  console.log('Run `pnpm bootstrap` in another terminal to create a merchant. Ctrl-C stops everything.\n');
  // Recurring invoices: the due processor on a timer (RECURRING_PROCESS_INTERVAL_MS, 0 = off).
  startRecurringTimer({
    adminBaseUrl: mesh.adminBaseUrl,
    systemApiKey,
    intervalMs: recurringEveryMs,
    log: (line) => onLine('recurring-timer', line),
  });
  if (recurringEveryMs)
    console.log(
      `Recurring processor: every ${Math.round(recurringEveryMs / 1000)} s (RECURRING_PROCESS_INTERVAL_MS; 0 turns it off).\n`,
    );
}

void main();
