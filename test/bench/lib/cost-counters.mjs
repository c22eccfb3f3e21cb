// The services' own cost counters (libs/runtime counters.ts), read the way the cost budget test
// reads them: each service logs a "cost counters" line (store statements, rows written, gRPC calls,
// JetStream messages) when it gets SIGUSR2, so reading costs no statement, call or message.
import { BACKENDS, GATEWAYS } from '../../../deploy/local/supervisor.mjs';

/** The mesh processes that report cost counters (every service; the sandboxes do not). */
export const COUNTED_SERVICES = [...GATEWAYS, ...BACKENDS].map(([name]) => name);

/** The counters the bench prints per flow, from one service's `costCounters`. */
function pick(c) {
  return {
    statements: c.store.statements,
    rowsWritten: c.store.rowsWritten,
    grpcCallsMade: c.grpc.callsMade,
    published: c.bus.published,
    consumed: c.bus.consumed,
  };
}

/**
 * A reader of the counters: pass `reader.onLine` as the bench mesh's `onLine`, then
 * `await reader.read(pids)` answers `{ service: { statements, rowsWritten, ... } }` now.
 */
export function costCounterReader(services = COUNTED_SERVICES) {
  const latest = new Map();
  const waiters = new Map();
  return {
    onLine(service, line) {
      if (!line.includes('"cost counters"')) return;
      let parsed;
      try {
        parsed = JSON.parse(line.slice(line.indexOf('{')));
      } catch {
        return;
      }
      if (parsed.msg !== 'cost counters' || !parsed.costCounters) return;
      latest.set(service, { seq: (latest.get(service)?.seq ?? 0) + 1, counters: pick(parsed.costCounters) });
      waiters.get(service)?.();
    },
    async read(pids, timeoutMs = 10_000) {
      const entries = await Promise.all(
        services.map(async (service) => {
          const pid = pids[service];
          if (pid === undefined) throw new Error(`${service} is not running`);
          const seen = latest.get(service)?.seq ?? 0;
          await new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
              waiters.delete(service);
              reject(new Error(`${service} logged no "cost counters" line within ${timeoutMs} ms of SIGUSR2`));
            }, timeoutMs);
            waiters.set(service, () => {
              if ((latest.get(service)?.seq ?? 0) <= seen) return;
              clearTimeout(timer);
              waiters.delete(service);
              resolve();
            });
            process.kill(pid, 'SIGUSR2');
          });
          return [service, latest.get(service).counters];
        }),
      );
      return Object.fromEntries(entries);
    },
  };
}

/** Per-flow counts between two reads: `{ perService: { service: { counter: n } }, total: { counter: n } }`. */
export function countsPerFlow(before, after, flows) {
  const perService = {};
  const total = {};
  for (const [service, end] of Object.entries(after)) {
    const start = before[service];
    if (!start) continue;
    perService[service] = {};
    for (const [k, v] of Object.entries(end)) {
      const n = (v - start[k]) / Math.max(flows, 1);
      perService[service][k] = Number(n.toFixed(2));
      total[k] = (total[k] ?? 0) + n;
    }
  }
  for (const k of Object.keys(total)) total[k] = Number(total[k].toFixed(2));
  return { perService, total };
}
