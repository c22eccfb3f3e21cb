import { BACKENDS, GATEWAYS } from '../../deploy/local/supervisor.mjs';
import type { CostCounters } from '../../libs/runtime/src/counters';
import { consumerBacklogs } from './mesh-checks';
import { NATS_URL, type TestMesh } from './mesh';

/** The mesh processes that report cost counters (every service; the sandboxes do not). */
export const COUNTED_SERVICES: readonly string[] = [...GATEWAYS, ...BACKENDS].map(([name]) => name);

/** The counters a budget covers, with the words a report uses for them. */
export const BUDGET_COUNTERS = {
  statements: 'store statements',
  rowsWritten: 'rows written',
  grpcCallsMade: 'gRPC calls made',
  grpcCallsServed: 'gRPC calls served',
  published: 'JetStream publishes',
  consumed: 'messages consumed',
  acked: 'acks',
} as const;
export type CounterName = keyof typeof BUDGET_COUNTERS;
export const COUNTER_NAMES = Object.keys(BUDGET_COUNTERS) as CounterName[];

/** Every service's counters at one moment. */
export type CounterSnapshot = Map<string, CostCounters>;

/** What one flow cost: per service, the budgeted counts and what they are made of. */
export interface FlowCost {
  counts: Record<string, Record<CounterName, number>>;
  /** Per service: gRPC calls by method, messages by event subject and store statements by shape (`made <path>`, `publish <subject>`, `sql <label>`, ...). */
  parts: Record<string, Record<string, number>>;
}

function budgeted(c: CostCounters): Record<CounterName, number> {
  return {
    statements: c.store.statements,
    rowsWritten: c.store.rowsWritten,
    grpcCallsMade: c.grpc.callsMade,
    grpcCallsServed: c.grpc.callsServed,
    published: c.bus.published,
    consumed: c.bus.consumed,
    acked: c.bus.acked,
  };
}

function partsOf(c: CostCounters): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [path, m] of Object.entries(c.grpc.byMethod)) {
    out[`made ${path}`] = m.made;
    out[`served ${path}`] = m.served;
  }
  for (const [subject, s] of Object.entries(c.bus.bySubject)) {
    out[`publish ${subject}`] = s.published;
    out[`consume ${subject}`] = s.consumed;
  }
  for (const [label, n] of Object.entries(c.store.byStatement ?? {})) out[`sql ${label}`] = n;
  return out;
}

/** Everything that moves while a process works (gauges aside), to tell whether it still does. */
function fingerprint(snapshot: CounterSnapshot): string {
  return JSON.stringify(
    [...snapshot].map(([service, c]) => [
      service,
      budgeted(c),
      c.bus.duplicates,
      c.bus.naked,
      c.bus.terminated,
      c.relay.published,
    ]),
  );
}

/** What the services did between two snapshots. */
export function costBetween(before: CounterSnapshot, after: CounterSnapshot): FlowCost {
  const cost: FlowCost = { counts: {}, parts: {} };
  for (const [service, end] of after) {
    const start = before.get(service);
    if (!start) throw new Error(`no earlier counters of ${service}`);
    const a = budgeted(start);
    const b = budgeted(end);
    cost.counts[service] = Object.fromEntries(COUNTER_NAMES.map((k) => [k, b[k] - a[k]])) as Record<
      CounterName,
      number
    >;
    const pa = partsOf(start);
    const parts: Record<string, number> = {};
    for (const [key, n] of Object.entries(partsOf(end))) if (n - (pa[key] ?? 0) !== 0) parts[key] = n - (pa[key] ?? 0);
    cost.parts[service] = parts;
  }
  return cost;
}

/** Adds flow costs (a flow measured in phases). */
export function sumCosts(costs: FlowCost[]): FlowCost {
  const out: FlowCost = { counts: {}, parts: {} };
  for (const cost of costs) {
    for (const [service, counts] of Object.entries(cost.counts)) {
      const into = (out.counts[service] ??= Object.fromEntries(COUNTER_NAMES.map((k) => [k, 0])) as Record<
        CounterName,
        number
      >);
      for (const k of COUNTER_NAMES) into[k] += counts[k];
    }
    for (const [service, parts] of Object.entries(cost.parts)) {
      const into = (out.parts[service] ??= {});
      for (const [key, n] of Object.entries(parts)) into[key] = (into[key] ?? 0) + n;
    }
  }
  return out;
}

/**
 * Reads the services' cost counters without costing them anything: each service logs its
 * counters when it gets SIGUSR2 (libs/runtime `reportCostCountersOnSignal`); pass `onLine` to
 * `startTestMesh` so the lines reach this reader.
 */
export class CostCounterReader {
  private readonly latest = new Map<string, { seq: number; counters: CostCounters }>();
  private readonly waiters = new Map<string, () => void>();

  constructor(private readonly services: readonly string[] = COUNTED_SERVICES) {}

  readonly onLine = (service: string, line: string): void => {
    if (!line.includes('"cost counters"')) return;
    const parsed = JSON.parse(line) as { msg?: string; costCounters?: CostCounters };
    if (parsed.msg !== 'cost counters' || !parsed.costCounters) return;
    this.latest.set(service, { seq: (this.latest.get(service)?.seq ?? 0) + 1, counters: parsed.costCounters });
    this.waiters.get(service)?.();
  };

  /** Every service's counters now (one signal and one log line per service). */
  async read(mesh: Pick<TestMesh, 'pids'>, timeoutMs = 10_000): Promise<CounterSnapshot> {
    const pids = mesh.pids();
    const entries = await Promise.all(
      this.services.map(async (service): Promise<[string, CostCounters]> => {
        const pid = pids[service];
        if (pid === undefined) throw new Error(`${service} is not running`);
        const seen = this.latest.get(service)?.seq ?? 0;
        const arrived = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            this.waiters.delete(service);
            reject(new Error(`${service} logged no "cost counters" line within ${timeoutMs} ms of SIGUSR2`));
          }, timeoutMs);
          this.waiters.set(service, () => {
            if ((this.latest.get(service)?.seq ?? 0) <= seen) return;
            clearTimeout(timer);
            this.waiters.delete(service);
            resolve();
          });
        });
        process.kill(pid, 'SIGUSR2');
        await arrived;
        const latest = this.latest.get(service);
        if (!latest) throw new Error(`no counters of ${service}`);
        return [service, latest.counters];
      }),
    );
    return new Map(entries);
  }

  /**
   * Waits until the mesh is quiet and answers its counters then: no JetStream message waiting for
   * a consumer or its ack, no gRPC call, handler, relay publish or background task running in any
   * service, and nothing counted since the previous look.
   */
  async quiet(mesh: Pick<TestMesh, 'pids' | 'namespace'>, timeoutMs = 30_000): Promise<CounterSnapshot> {
    const deadline = Date.now() + timeoutMs;
    let previous: CounterSnapshot | undefined;
    for (;;) {
      const backlog = (await consumerBacklogs(NATS_URL, mesh.namespace)).filter(
        (b) => b.numPending > 0 || b.numAckPending > 0,
      );
      const snapshot = await this.read(mesh);
      const busy = [...snapshot]
        .filter(([, c]) => c.grpc.callsInFlight > 0 || c.bus.handling > 0 || c.relay.busy || c.background > 0)
        .map(([service]) => service);
      const idle = backlog.length === 0 && busy.length === 0;
      if (idle && previous && fingerprint(previous) === fingerprint(snapshot)) return snapshot;
      if (Date.now() > deadline) {
        const why = [
          ...backlog.map((b) => `${b.consumer}: ${b.numPending} pending, ${b.numAckPending} unacknowledged`),
          ...busy.map((s) => `${s} busy`),
          ...(idle ? ['counters still moving'] : []),
        ];
        throw new Error(`the mesh did not become quiet within ${timeoutMs} ms: ${why.join('; ')}`);
      }
      previous = idle ? snapshot : undefined;
    }
  }
}
