import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { BACKENDS, GATEWAYS } from '../../deploy/local/supervisor.mjs';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { IpnReceiver } from '../support/ipn-receiver';
import { api, eventually, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { consumerBacklogs, succeededIntents, unpublishedOutbox } from '../support/mesh-checks';
import { PrivateNatsCluster, type StreamPlacement } from '../support/nats-server';
import { PayLoad } from '../support/pay-load';
import {
  tallyTransaction,
  windowIndex,
  windowProblems,
  windowTable,
  windowTallies,
  type FaultWindow,
} from '../support/fault-verdict';

/**
 * The mesh on a 3-node JetStream cluster with BUS_STREAM_REPLICAS=3 and NATS_URL listing all
 * three servers. Under a steady, bounded payment load the node that leads the most of the mesh's
 * streams is SIGKILLed; the other two elect new leaders and the mesh keeps taking payments; then
 * the node is restarted with its store and catches up. Afterwards: every payment the sandbox
 * captured is completed exactly once, every status change reached the merchant as one signed IPN,
 * no outbox row is unpublished, no consumer has a backlog and every stream keeps 3 current
 * copies. A table of faults x outcomes is printed.
 */

const RATE = Number(process.env.NATS_CLUSTER_RATE ?? 1);
/** Bound of the load: at most this many buyers in all. */
const MAX_FLOWS = 40;
/** Completions before the fault, so the kill lands on a mesh that is carrying the load. */
const WARM_UP = 5;
/** Flows started after a fault step that must complete before the mesh counts as recovered. */
const RECOVERED_AFTER = 3;
// Bounds for a machine shared with other suites; the conditions usually hold within seconds.
const FAILOVER_TIMEOUT_MS = 60_000;
const RECOVERY_TIMEOUT_MS = 90_000;
const DRAIN_TIMEOUT_MS = 120_000;

/** restored: every stream has a leader again (kill) / the node is a current copy of every stream (restart). */
type Window = FaultWindow;

interface Ipn {
  id: string;
  status: number;
  valid: boolean;
  at: number;
}

interface TxRecord {
  status: number;
  statusHistory: { from: number | null; to: number }[];
  ipn: { deliveries: { status: number; state: string; attempts: { error: string | null }[] }[] } | null;
}

describe('NATS cluster: the stream leader crashes under payment load', () => {
  let cluster: PrivateNatsCluster;
  let receiver: IpnReceiver;
  let mesh: TestMesh;
  let receiverUrl = '';

  beforeAll(async () => {
    cluster = await PrivateNatsCluster.start(3);
    receiver = new IpnReceiver();
    receiverUrl = await receiver.start();
    mesh = await startTestMesh({
      natsUrl: cluster.url,
      env: {
        LOG_LEVEL: 'info',
        BUS_STREAM_REPLICAS: '3',
        IPN_BACKOFF_BASE_MS: '500',
        // Events a failed publish left in the outbox are picked up by the relay's poll.
        OUTBOX_POLL_INTERVAL_MS: '1000',
      },
    });
  });

  afterAll(async () => {
    await mesh?.dispose();
    await receiver?.stop();
    await cluster?.stop();
  });

  it(
    'completes every captured payment once, with one signed IPN per status change, and keeps 3 replicas',
    async () => {
      const testStartedAt = Date.now();
      const boot: BootstrapResult = await mesh.bootstrap();
      const provider = (boot.providers as { provider_a: { id: string; secretKey: string } }).provider_a;
      const sandboxUrl = mesh.sandboxUrls['sandbox-provider-a'];
      expect(sandboxUrl, 'the provider_a sandbox must be built').toBeTruthy();
      const prefix = `${mesh.namespace.toUpperCase()}_`;

      const ipns: Ipn[] = [];
      const ipnsByTx = new Map<string, Ipn[]>();
      receiver.respond = (req) => {
        const valid = verifyIpn(
          boot.webhookSigningSecret,
          req.headers as Record<string, string>,
          req.rawBody,
          300,
        ).valid;
        const body = JSON.parse(req.rawBody.toString('utf8')) as { id: string; status: number };
        const ipn = { id: body.id, status: body.status, valid, at: req.at };
        ipns.push(ipn);
        ipnsByTx.set(ipn.id, [...(ipnsByTx.get(ipn.id) ?? []), ipn]);
        return 200;
      };
      const completedAt = (txId: string | undefined) =>
        txId ? ipnsByTx.get(txId)?.find((i) => i.status === 1 && i.valid)?.at : undefined;

      // Streams are created by the services at start: with 3 copies, one per node.
      const before = await cluster.placements(prefix);
      expect(before.length).toBeGreaterThan(0);
      expect(before.filter((p) => p.replicas !== 3 || p.peers.length !== 3)).toEqual([]);

      const load = new PayLoad({
        adminBaseUrl: mesh.adminBaseUrl,
        publicBaseUrl: mesh.publicBaseUrl,
        apiKey: boot.apiKey,
        siteId: boot.siteId,
        ipnUrl: `${receiverUrl}/ipn`,
        providerId: () => provider.id,
        ratePerSecond: RATE,
        maxInFlight: 10,
        maxFlows: MAX_FLOWS,
      });
      const completedSince = (t: number) =>
        load.flows.filter((f) => f.startedAt >= t && completedAt(f.transactionId) !== undefined);
      /** Waits until RECOVERED_AFTER flows started after `w.restoredAt` completed. */
      const recovered = async (w: Window) => {
        const done = await eventually(
          () => {
            const d = completedSince(w.restoredAt!);
            return d.length >= RECOVERED_AFTER ? d : undefined;
          },
          RECOVERY_TIMEOUT_MS,
          200,
        ).catch((err: unknown) => {
          const capped =
            load.flows.filter((f) => f.startedAt >= w.restoredAt!).length < RECOVERED_AFTER &&
            load.flows.length >= MAX_FLOWS;
          throw capped
            ? new Error(
                `the load reached its bound of ${MAX_FLOWS} flows before ${RECOVERED_AFTER} started after the fault`,
              )
            : err;
        });
        w.recoveredAt = Math.min(...done.map((f) => completedAt(f.transactionId)!));
      };

      const windows: Window[] = [
        { fault: 'baseline (no fault)', injectedAt: Date.now(), detail: `${before.length} streams R3`, problems: [] },
      ];
      load.start();
      await eventually(() => completedSince(0).length >= WARM_UP, RECOVERY_TIMEOUT_MS, 200);
      windows[0]!.restoredAt = windows[0]!.injectedAt;
      windows[0]!.recoveredAt = Math.min(...completedSince(0).map((f) => completedAt(f.transactionId)!));

      // ---- kill -9 the node leading the most streams ----
      const leading = await cluster.placements(prefix);
      const counts = new Map<string, number>();
      for (const p of leading) if (p.leader) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
      const [victim, led] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
      const consumersBefore = await consumerReplicaCounts(cluster.liveUrl, prefix);
      const ledConsumers = consumersBefore.filter((c) => c.leader === victim).length;
      const services = [...BACKENDS, ...GATEWAYS].map(([name]) => name);
      const reconnects = () =>
        services.filter((svc) => mesh.logs(svc).some((l) => l.includes('reconnected to NATS'))).length;
      const reconnectedBefore = reconnects();
      const kill: Window = {
        fault: `kill -9 ${victim} (stream leader)`,
        injectedAt: Date.now(),
        detail: `led ${led}/${leading.length} streams, ${ledConsumers}/${consumersBefore.length} consumers`,
        problems: [],
      };
      windows.push(kill);
      await cluster.node(victim).kill();
      try {
        const after = await eventually(
          async () => {
            const ps = await cluster.placements(prefix);
            return ps.length === leading.length && ps.every((p) => p.leader && p.leader !== victim) ? ps : undefined;
          },
          FAILOVER_TIMEOUT_MS,
          200,
        );
        kill.restoredAt = Date.now();
        kill.detail += `; new leaders ${[...new Set(after.map((p) => p.leader))].sort().join(',')} after ${((kill.restoredAt - kill.injectedAt) / 1000).toFixed(1)}s`;
        await recovered(kill);
        kill.detail += `; ${reconnects() - reconnectedBefore} services reconnected to another node`;
      } catch (err) {
        kill.problems.push(`did not recover: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }

      // ---- restart it with its store; it must catch up as a current copy of every stream ----
      const restart: Window = { fault: `restart ${victim}`, injectedAt: Date.now(), detail: '', problems: [] };
      windows.push(restart);
      try {
        await cluster.node(victim).start(FAILOVER_TIMEOUT_MS);
        await eventually(
          async () => {
            const ps = await cluster.placements(prefix);
            return ps.every(
              (p) =>
                p.peers.length === 3 &&
                p.peers.every((peer) => peer.current && !peer.offline) &&
                p.peers.some((peer) => peer.name === victim),
            );
          },
          FAILOVER_TIMEOUT_MS,
          200,
        );
        restart.restoredAt = Date.now();
        restart.detail = `current in every stream after ${((restart.restoredAt - restart.injectedAt) / 1000).toFixed(1)}s`;
        await recovered(restart);
      } catch (err) {
        restart.problems.push(`did not recover: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
      await load.stop();

      // ---- drain: everything captured completes, the outbox empties, consumers have no backlog ----
      const captured = load.flows.filter((f) => f.capturedAt !== undefined);
      const drainProblems: string[] = [];
      await eventually(
        async () => {
          if (captured.some((f) => completedAt(f.transactionId) === undefined)) return false;
          if ((await unpublishedOutbox(PG_URL, mesh.namespace)).some((o) => o.count > 0)) return false;
          return (await consumerBacklogs(cluster.liveUrl, mesh.namespace)).every(
            (c) => c.numPending === 0 && c.numAckPending === 0,
          );
        },
        DRAIN_TIMEOUT_MS,
        500,
      ).catch(() => undefined);
      const outboxLeft = (await unpublishedOutbox(PG_URL, mesh.namespace)).filter((o) => o.count > 0);
      const consumers = await consumerBacklogs(cluster.liveUrl, mesh.namespace);
      const stuck = consumers.filter((c) => c.numPending > 0 || c.numAckPending > 0);
      if (outboxLeft.length) drainProblems.push(`unpublished outbox rows: ${JSON.stringify(outboxLeft)}`);
      if (stuck.length) drainProblems.push(`consumers with a backlog: ${JSON.stringify(stuck)}`);
      if (consumers.length === 0) drainProblems.push('no durable consumers found');

      // ---- replicas: every stream and consumer keeps 3 current copies ----
      const final = await cluster.placements(prefix);
      const notR3 = (p: StreamPlacement) =>
        p.replicas !== 3 || p.peers.length !== 3 || p.peers.some((peer) => !peer.current || peer.offline);
      for (const p of final.filter(notR3)) drainProblems.push(`stream ${p.stream}: ${JSON.stringify(p)}`);
      if (final.length !== before.length) drainProblems.push(`${final.length} streams after, ${before.length} before`);
      const consumerCopies = await consumerReplicaCounts(cluster.liveUrl, prefix);
      for (const c of consumerCopies.filter((c) => c.copies !== 3))
        drainProblems.push(`consumer ${c.stream}/${c.consumer}: ${c.copies} copies`);

      // ---- the truth from the system: transaction records, status history, IPN deliveries ----
      const records = new Map<string, TxRecord>();
      for (const f of load.flows.filter((f) => f.transactionId)) {
        const r = await api('GET', `${mesh.adminBaseUrl}/transactions/${f.transactionId}`, { token: boot.apiKey });
        if (r.status === 200) records.set(f.transactionId!, r.body as TxRecord);
        else drainProblems.push(`GET transaction ${f.transactionId} -> ${r.status}`);
      }
      const sandboxSucceeded = await succeededIntents(sandboxUrl!, provider.secretKey);
      const flowIntents = new Set(load.flows.map((f) => f.paymentIntentId));
      for (const id of sandboxSucceeded)
        if (!flowIntents.has(id)) drainProblems.push(`sandbox captured ${id}, which no buyer paid`);

      const rows = windowTallies(windows);
      for (const f of load.flows) {
        const row = rows[windowIndex(windows, f.startedAt)]!;
        row.started += 1;
        // The pay step's answer can be cut off while the capture happened: the sandbox is the truth.
        if (f.capturedAt === undefined && f.paymentIntentId !== undefined && sandboxSucceeded.has(f.paymentIntentId))
          f.capturedAt = f.endedAt ?? Date.now();
        if (f.capturedAt !== undefined) row.captured += 1;
        if (f.failedStep) row.failedSteps += 1;
        if (f.error?.startsWith('HTTP 500')) row.problems.push(`flow ${f.n} answered ${f.error}`);
        if (!f.transactionId) continue;
        const tag = `flow ${f.n} (${f.transactionId})`;
        tallyTransaction(
          row,
          tag,
          f.capturedAt !== undefined,
          records.get(f.transactionId),
          ipnsByTx.get(f.transactionId) ?? [],
        );
      }

      const report = [
        '',
        `nats cluster (3 nodes, BUS_STREAM_REPLICAS=3): ${load.flows.length} flows at ${RATE}/s, captured ${captured.length}, ` +
          `IPN POSTs ${ipns.length}, ${final.length} streams and ${consumerCopies.length} consumers with 3 copies each at the end; ` +
          `test ${((Date.now() - testStartedAt) / 1000).toFixed(0)} s`,
        ...windowTable(windows, rows),
        `drain: ${drainProblems.length ? drainProblems.join('; ') : 'outbox empty, no consumer backlog, every stream and consumer R3 and current'}`,
        'failed steps: buyer steps that failed during a window (recorded, never retried; a capture is what counts)',
        ...windowProblems(windows, rows),
        '',
      ].join('\n');
      console.log(report);
      writeFileSync(join(mesh.logDir, 'nats-cluster-report.txt'), report);
      writeFileSync(
        join(mesh.logDir, 'nats-cluster-flows.json'),
        JSON.stringify({ windows, flows: load.flows }, null, 1),
      );

      expect(drainProblems).toEqual([]);
      expect(windows.map((w, i) => ({ fault: w.fault, problems: rows[i]!.problems }))).toEqual(
        windows.map((w) => ({ fault: w.fault, problems: [] })),
      );
      expect(captured.length).toBeGreaterThanOrEqual(WARM_UP + 2 * RECOVERED_AFTER);
    },
    10 * 60_000,
  );
});

/** Copies each durable consumer of the namespace's streams has (its leader and replicas). */
async function consumerReplicaCounts(
  natsUrl: string,
  prefix: string,
): Promise<{ stream: string; consumer: string; leader: string | undefined; copies: number }[]> {
  const nc = await connect({ servers: natsUrl, timeout: 2000, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    const out: { stream: string; consumer: string; leader: string | undefined; copies: number }[] = [];
    for await (const si of jsm.streams.list()) {
      if (!si.config.name.startsWith(prefix)) continue;
      for await (const ci of jsm.consumers.list(si.config.name)) {
        out.push({
          stream: si.config.name,
          consumer: ci.name,
          leader: ci.cluster?.leader,
          copies: (ci.cluster?.leader ? 1 : 0) + (ci.cluster?.replicas?.length ?? 0),
        });
      }
    }
    return out;
  } finally {
    await nc.close();
  }
}
