// The local run's recurring processor: calls POST /system/recurring/process on gateway-admin every
// `intervalMs` (RECURRING_PROCESS_INTERVAL_MS, default 15 minutes; 0 turns it off), as the Helm
// chart's CronJob does in a cluster. Runs never overlap here; the processor is safe if they did.

/** Parses RECURRING_PROCESS_INTERVAL_MS: a whole number of milliseconds, 0 = off. */
export function recurringIntervalMs(env) {
  const raw = env.RECURRING_PROCESS_INTERVAL_MS;
  if (raw === undefined || raw === '') return 15 * 60_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error('RECURRING_PROCESS_INTERVAL_MS must be a whole number of milliseconds (0 turns it off)');
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
