// The local run's recurring processor: calls POST /system/recurring/process on gateway-admin every
// `intervalMs` (RECURRING_PROCESS_INTERVAL_MS, default 15 minutes; 0 turns it off), as the Helm
// chart's CronJob does in a cluster, and compose's recurring-processor service (the CLI at the end).
// Runs never overlap here; the processor is safe if they did.
import { pathToFileURL } from 'node:url';

/** Parses RECURRING_PROCESS_INTERVAL_MS: a whole number of milliseconds, 0 = off. */
export function recurringIntervalMs(env) {
  const raw = env.RECURRING_PROCESS_INTERVAL_MS;
  if (raw === undefined || raw === '') return 15 * 60_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new Error('RECURRING_PROCESS_INTERVAL_MS must be a whole number of milliseconds (0 turns it off)');
  return n;
}

/**
 * Starts the timer; returns a function that stops it. `log(line)` receives one line per run that
 * did something or failed.
 */
export function startRecurringTimer({ adminBaseUrl, systemApiKey, intervalMs, log }) {
  if (!intervalMs) return () => {};
  let timer;
  let stopped = false;
  const run = async () => {
    try {
      const res = await fetch(`${adminBaseUrl}/system/recurring/process`, {
        method: 'POST',
        headers: { authorization: `Bearer ${systemApiKey}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const text = await res.text();
      if (!res.ok) log(`recurring processor: HTTP ${res.status} ${text}`);
      else {
        const r = JSON.parse(text);
        if (r.processed || r.failed || r.cancellationsFinalized) log(`recurring processor: ${text}`);
      }
    } catch (err) {
      log(`recurring processor: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      if (!stopped) timer = setTimeout(run, intervalMs);
    }
  };
  timer = setTimeout(run, intervalMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// CLI (compose's recurring-processor service): node deploy/local/recurring-timer.mjs, with
// PAYMESH_ADMIN_URL (gateway-admin's /api/v1 base), SYSTEM_API_KEY and RECURRING_PROCESS_INTERVAL_MS.
// Runs until SIGTERM/SIGINT; with the interval 0 it says so and exits 0.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { PAYMESH_ADMIN_URL: adminBaseUrl, SYSTEM_API_KEY: systemApiKey } = process.env;
  if (!adminBaseUrl || !systemApiKey) {
    console.error(
      'recurring processor: set PAYMESH_ADMIN_URL (gateway-admin, …/api/v1) and SYSTEM_API_KEY (a system key with system:execute)',
    );
    process.exit(2);
  }
  const intervalMs = recurringIntervalMs(process.env);
  if (!intervalMs) {
    console.log('recurring processor: off (RECURRING_PROCESS_INTERVAL_MS=0)');
    process.exit(0);
  }
  const stop = startRecurringTimer({ adminBaseUrl, systemApiKey, intervalMs, log: (line) => console.log(line) });
  console.log(
    `recurring processor: POST ${adminBaseUrl}/system/recurring/process every ${Math.round(intervalMs / 1000)} s`,
  );
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      stop();
      process.exit(0);
    });
  }
}
