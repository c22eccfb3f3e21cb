import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WALKTHROUGH_INVOICING,
  WALKTHROUGH_TAX_PATCHES,
  type BootstrapResult,
} from '../../deploy/local/bootstrap-lib.mjs';
import { BACKENDS, GATEWAYS } from '../../deploy/local/supervisor.mjs';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { call, makeClient } from '../../libs/grpc/src/index';
import { recurring } from '../../libs/proto/src/index';
import { Balancer, HttpBalancer } from '../support/balancer';
import { IpnReceiver } from '../support/ipn-receiver';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, PG_URL, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { CostCounterReader } from '../support/cost-counters';
import { consumerBacklogs, succeededIntents, unpublishedOutbox } from '../support/mesh-checks';
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
 * Two replicas of every backend and of both gateways on one PostgreSQL, NATS and Redis, each
 * service behind a round-robin balancer as behind a Kubernetes Service. Under a steady payment
 * load, with paid checkouts invoiced automatically and the recurring processor called on both of
 * its replicas at the same moment again and again:
 * - a rolling restart: each service in turn loses replica 1 the way Kubernetes stops a pod (out
 *   of the balancer's rotation, then SIGTERM); it must drain and exit 0 on its own, and no buyer
 *   request may fail meanwhile; it is started again;
 * - a node loss: replica 2 of every service is SIGKILLed at once; the replicas 1 carry on alone
 *   until the killed ones are started again, one after the other.
 * Afterwards: every payment the sandbox captured completed exactly once with one signed IPN per
 * status change, one invoice per paid checkout, invoice numbers unique and gap-free, each
 * recurring cycle invoiced (and e-mailed) once, the rate limits held across the replicas, no
 * outbox row left, no consumer with a backlog. A table of faults x outcomes is printed.
 */

const SERVICES = [...BACKENDS, ...GATEWAYS].map(([name]) => name);
const RATE = Number(process.env.REPLICAS_RATE ?? 2);
const MAX_FLOWS = 600;
const WARM_UP = 4;
/** Flows started after a node-loss step that must complete before the mesh counts as recovered. */
const RECOVERED_AFTER = 3;
/** How long a SIGTERMed replica may take to drain before it counts as hung (and is SIGKILLed). */
const GRACE_MS = 30_000;
/** How long a step waits for its replica to be in the middle of some work before it signals anyway. */
const BUSY_WAIT_MS = 5_000;
const RESTART_TIMEOUT_MS = 90_000;
const RECOVERY_TIMEOUT_MS = 90_000;
const DRAIN_TIMEOUT_MS = 120_000;
/** Per-client budget per minute of the requests the rate-limit check sends (from LIMITED_IP). */
const LIMIT = 6;
/** Loopback address outside the allow-list: its requests are counted. */
const LIMITED_IP = '127.0.0.2';
/** First cycle of the recurring schedules; round k runs "now" = START + 31k days. */
const START = Date.UTC(2027, 0, 15);
const DAY = 86_400_000;

interface Window extends FaultWindow {
  /** A graceful stop: no buyer step may fail while it lasts. */
  graceful: boolean;
}

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

interface InvoiceItem {
  id: string;
  status: string;
  number: string | null;
  clientId: string;
  sourceTransactionId: string | null;
  servicePeriod: { start: string; end: string } | null;
}

interface Round {
  k: number;
  now: string;
  results: { replica: string; completed?: number; error?: string }[];
}

/** A request from another loopback source address (fetch cannot choose its source address). */
function requestFrom(
  ip: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: ip, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        const retry = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('two replicas of every service', () => {
  // Backends behind a TCP balancer (a Kubernetes Service: kube-proxy), gateways behind an HTTP one (an ingress).
  const gatewayNames: readonly string[] = GATEWAYS.map(([name]) => name);
  const balancers = new Map<string, Balancer | HttpBalancer>(
    SERVICES.map((s) => [s, gatewayNames.includes(s) ? new HttpBalancer(s) : new Balancer(s)]),
  );
  const receiver = new IpnReceiver();
  let mesh: TestMesh;
  let receiverUrl = '';
  // One counter reader per process (each reads the counters of its process alone).
  const counters = new Map(SERVICES.flatMap((s) => [s, `${s}#2`]).map((n) => [n, new CostCounterReader([n])]));

  beforeAll(async () => {
    const fronts: Record<string, number> = {};
    for (const [service, b] of balancers) fronts[service] = await b.start();
    receiverUrl = await receiver.start();
    mesh = await startTestMesh({
      replicas: 2,
      fronts,
      onLine: (name, line) => counters.get(name)?.onLine(name, line),
      env: {
        LOG_LEVEL: 'info',
        // 18 service processes share the machine's PostgreSQL (max_connections 100) with other suites.
        STORE_POOL_MAX: '3',
        IPN_BACKOFF_BASE_MS: '500',
        OUTBOX_POLL_INTERVAL_MS: '1000',
        RECURRING_TEST_HOOKS: 'true',
        RECURRING_CLAIM_LEASE_MS: '5000',
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        ECB_RATES_INTERVAL_MS: '0',
        // The gateways drain as in production (the local supervisor's default is 0), a little shorter.
        HTTP_DRAIN_MS: '3000',
      },
    });
    for (const [service, b] of balancers) for (const name of mesh.replicas(service)) b.add(name, mesh.ports[name]!);
  }, 180_000);

  afterAll(async () => {
    await mesh?.dispose();
    await receiver.stop();
    for (const b of balancers.values()) await b.stop();
  });

  it(
    'drains on SIGTERM, survives SIGKILL, and keeps payments, IPNs, invoices, recurring cycles and rate limits exactly right',
    async () => {
      const testStartedAt = Date.now();
      const boot: BootstrapResult = await mesh.bootstrap();
      const provider = (boot.providers as { provider_a: { id: string; secretKey: string } }).provider_a;
      const sandboxUrl = mesh.sandboxUrls['sandbox-provider-a'];
      const mailUrl = mesh.sandboxUrls['sandbox-mail'];
      expect(sandboxUrl, 'the provider_a sandbox must be built').toBeTruthy();
      expect(mailUrl, 'the mail catcher must be built').toBeTruthy();
      const mail = new MailCatcherClient(mailUrl!);
      const admin = (method: string, path: string, body?: unknown) =>
        api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

      // The walk-through merchant: German seller, paid checkouts invoiced automatically.
      for (const [path, body] of [
        ...WALKTHROUGH_TAX_PATCHES.map((patch) => ['/organizations/settings/tax', patch] as const),
        ['/organizations/settings/invoicing', WALKTHROUGH_INVOICING] as const,
      ]) {
        const res = await admin('PUT', path, body);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // Two monthly schedules: one whose invoices are issued and e-mailed, one only issued.
      const schedules: { id: string; clientId: string; email: string; emailed: boolean }[] = [];
      for (const [email, emailed] of [
        ['mailed.subscriber@example.com', true],
        ['quiet.subscriber@example.com', false],
      ] as const) {
        const client = await admin('POST', '/clients', {
          name: `Subscriber ${email}`,
          email,
          address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        });
        expect(client.status, JSON.stringify(client.body)).toBe(201);
        const s = await admin('POST', '/invoices/recurring', {
          startDate: new Date(START).toISOString().slice(0, 10),
          interval: 'month',
          autoFinalizeInvoices: true,
          autoSendInvoices: emailed,
          template: {
            siteId: boot.siteId,
            clientId: client.body.id,
            currency: 'EUR',
            items: [
              { description: 'Plan', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'digital_service' },
            ],
            paymentTermsDays: 14,
          },
        });
        expect(s.status, JSON.stringify(s.body)).toBe(201);
        schedules.push({ id: s.body.id, clientId: client.body.id, email, emailed });
      }

      // ---- the recurring processor, called on both replicas at the same moment ----
      const rounds: Round[] = [];
      const runRound = async (k: number): Promise<Round> => {
        const round: Round = { k, now: new Date(START + k * 31 * DAY + 12 * 3_600_000).toISOString(), results: [] };
        rounds.push(round);
        round.results = await Promise.all(
          mesh.replicas('recurring').map(async (replica) => {
            const client = makeClient(recurring.RecurringServiceClient, `127.0.0.1:${mesh.ports[replica]}`);
            try {
              const r = await call(
                client,
                client.processDue,
                {
                  organizationId: '',
                  testMode: false,
                  id: '',
                  actor: 'system',
                  bodyJson: JSON.stringify({ now: round.now }),
                },
                { deadlineMs: 60_000, target: 'recurring' },
              );
              return { replica, completed: (JSON.parse(r.json) as { completed: number }).completed };
            } catch (err) {
              return { replica, error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
            } finally {
              client.close();
            }
          }),
        );
        return round;
      };
      const pendingRounds: Promise<Round>[] = [];

      // ---- IPNs the merchant receives ----
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

      const load = new PayLoad({
        adminBaseUrl: mesh.adminBaseUrl,
        publicBaseUrl: mesh.publicBaseUrl,
        apiKey: boot.apiKey,
        siteId: boot.siteId,
        ipnUrl: `${receiverUrl}/ipn`,
        providerId: () => provider.id,
        ratePerSecond: RATE,
        maxInFlight: 12,
        maxFlows: MAX_FLOWS,
      });
      const completedSince = (t: number) =>
        load.flows.filter((f) => f.startedAt >= t && completedAt(f.transactionId) !== undefined);

      const windows: Window[] = [
        { fault: 'baseline (no fault)', graceful: true, injectedAt: Date.now(), detail: '', problems: [] },
      ];
      load.start();
      await eventually(() => completedSince(0).length >= WARM_UP, RECOVERY_TIMEOUT_MS, 200);
      windows[0]!.restoredAt = windows[0]!.injectedAt;
      windows[0]!.recoveredAt = Math.min(...completedSince(0).map((f) => completedAt(f.transactionId)!));
      const first = await runRound(0);
      windows[0]!.detail = `recurring run on both replicas: ${first.results.map((r) => r.completed ?? r.error).join(' + ')} cycles`;

      // ---- rate limits: one budget for both replicas of a gateway ----
      const key = await admin('POST', `/organizations/${boot.organizationId}/api-keys`, {
        name: 'rate-limit probe',
        scopes: ['site:read'],
        role: 'Viewer',
      });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const rateLimits: string[] = [];
      for (const [service, path, headers] of [
        ['gateway-admin', '/api/v1/sites', { authorization: `Bearer ${key.body.token as string}` }],
        ['gateway-public', '/api/v1/vat/eu-country/DE', {}],
      ] as const) {
        const statuses: number[] = [];
        for (let i = 0; i < 2 * LIMIT; i++) {
          const replica = mesh.replicas(service)[i % 2]!;
          const res = await requestFrom(LIMITED_IP, `http://127.0.0.1:${mesh.ports[replica]}${path}`, headers);
          if (res.status === 429 && !res.retryAfter) rateLimits.push(`${service}: 429 without Retry-After`);
          statuses.push(res.status);
        }
        const allowed = statuses.filter((s) => s !== 429).length;
        rateLimits.push(
          `${service} (${path.startsWith('/api/v1/sites') ? 'per key' : 'per IP'}): ${allowed} of ${2 * LIMIT} requests over both replicas allowed, limit ${LIMIT}`,
        );
        expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
        expect(allowed, `${service} statuses ${statuses.join(',')}`).toBe(LIMIT);
      }

      // ---- rolling restart: each service loses replica 1 gracefully, in turn ----
      const exits: string[] = [];
      let k = 1;
      for (const service of SERVICES) {
        const name = mesh.replicas(service)[0]!;
        const w: Window = {
          fault: `SIGTERM ${name}`,
          graceful: true,
          injectedAt: Date.now(),
          detail: '',
          problems: [],
        };
        windows.push(w);
        // A recurring run on both replicas starts at the same moment as the stop.
        pendingRounds.push(runRound(k++));
        // The stop should catch the replica working: answering a call or a request, handling an
        // event, running a background pass, or waiting for a backend.
        const busyAt = Date.now();
        const busy = await eventually(
          async () => {
            const c = (await counters.get(name)!.read(mesh, 2_000)).get(name);
            return c &&
              (c.grpcServing > 0 ||
                (c.httpInFlight ?? 0) > 0 ||
                c.grpc.callsInFlight > 0 ||
                c.bus.handling > 0 ||
                c.background > 0)
              ? c
              : undefined;
          },
          BUSY_WAIT_MS,
          20,
        ).catch(() => undefined);
        const busyAfterMs = Date.now() - busyAt;
        // The endpoint leaves the Service, and the signal follows at once: no preStop delay, so
        // what was in flight at the removal is still running when SIGTERM comes (harder than the
        // chart's 5 s, during which it would mostly finish).
        balancers.get(service)!.remove(name);
        const how = await mesh.terminate(name, GRACE_MS);
        const said = (msg: string) =>
          mesh
            .logs(name)
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Record<string, unknown>)
            .filter((l) => l.msg === msg)
            .at(-1);
        const begun = said('shutting down');
        const labels: Record<string, string> = {
          grpcCallsInFlight: 'calls',
          eventsInFlight: 'events',
          backgroundInFlight: 'background',
          httpInFlight: 'requests',
        };
        const inFlight = Object.entries(labels)
          .filter(([f]) => typeof begun?.[f] === 'number')
          .map(([f, label]) => `${String(begun?.[f])} ${label}`);
        w.detail =
          `${busy ? `busy after ${(busyAfterMs / 1000).toFixed(1)}s` : `idle for ${BUSY_WAIT_MS / 1000}s`}; ` +
          `in flight at SIGTERM: ${inFlight.join(', ') || '?'}; exit ${how.signal ?? how.code} after ${(how.ms / 1000).toFixed(1)}s`;
        if (!said('stopped')) w.problems.push(`${name} never logged "stopped"`);
        exits.push(`${name}: ${w.detail}${how.forced ? ' (forced)' : ''}`);
        if (how.forced || how.code !== 0) w.problems.push(`${name} did not drain and exit 0: ${JSON.stringify(how)}`);
        try {
          await mesh.restart(name, RESTART_TIMEOUT_MS);
          balancers.get(service)!.add(name, mesh.ports[name]!);
          w.restoredAt = Date.now();
        } catch (err) {
          w.problems.push(`did not restart: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        }
      }

      // ---- node loss: replica 2 of every service is SIGKILLed at once; the others carry on ----
      const victims = SERVICES.map((s) => mesh.replicas(s)[1]!);
      /** Waits until RECOVERED_AFTER flows started after `since` completed; records when. */
      const recovered = async (w: Window, since: number) => {
        try {
          const done = await eventually(
            () => {
              const d = completedSince(since);
              return d.length >= RECOVERED_AFTER ? d : undefined;
            },
            RECOVERY_TIMEOUT_MS,
            200,
          );
          w.recoveredAt = Math.min(...done.map((f) => completedAt(f.transactionId)!));
        } catch (err) {
          w.problems.push(`did not recover: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        }
      };
      const loss: Window = {
        fault: 'SIGKILL replica 2 of all',
        graceful: false,
        injectedAt: Date.now(),
        detail: 'the replicas 1 carry everything',
        problems: [],
      };
      windows.push(loss);
      pendingRounds.push(runRound(k++));
      await Promise.all(victims.map((v) => mesh.kill(v)));
      loss.restoredAt = Date.now();
      await recovered(loss, loss.restoredAt);

      // ---- the node comes back: the killed replicas start again, one after the other ----
      const back: Window = {
        fault: 'restart replica 2 of all',
        graceful: true,
        injectedAt: Date.now(),
        detail: '',
        problems: [],
      };
      windows.push(back);
      try {
        for (const v of victims) await mesh.restart(v, RESTART_TIMEOUT_MS);
        back.restoredAt = Date.now();
        back.detail = `${victims.length} processes back after ${((back.restoredAt - back.injectedAt) / 1000).toFixed(1)}s`;
        await recovered(back, back.restoredAt);
      } catch (err) {
        back.problems.push(`did not restart: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
      await load.stop();
      await Promise.all(pendingRounds);
      const last = await runRound(k);
      const finalNow = Date.parse(last.now);

      // ---- drain: everything captured completes, the outbox empties, consumers have no backlog ----
      const sandboxSucceeded = await succeededIntents(sandboxUrl!, provider.secretKey);
      for (const f of load.flows) {
        // The pay step's answer can be cut off while the capture happened: the sandbox is the truth.
        if (f.capturedAt === undefined && f.paymentIntentId !== undefined && sandboxSucceeded.has(f.paymentIntentId))
          f.capturedAt = f.endedAt ?? Date.now();
      }
      const captured = load.flows.filter((f) => f.capturedAt !== undefined);
      const expectedCycles = (() => {
        let n = 0;
        while (Date.UTC(2027, n, 15) <= finalNow) n += 1;
        return n;
      })();
      const allInvoices = async (): Promise<InvoiceItem[]> => {
        const out: InvoiceItem[] = [];
        for (let page = 1; page < 100; page++) {
          const res = await admin('GET', `/invoices?limit=100&page=${page}`);
          const items = (res.body?.items ?? []) as InvoiceItem[];
          out.push(...items);
          if (items.length < 100) break;
        }
        return out;
      };
      const drainProblems: string[] = [];
      await eventually(
        async () => {
          if (captured.some((f) => completedAt(f.transactionId) === undefined)) return false;
          if ((await unpublishedOutbox(PG_URL, mesh.namespace)).some((o) => o.count > 0)) return false;
          const backlog = await consumerBacklogs(NATS_URL, mesh.namespace);
          if (!backlog.every((c) => c.numPending === 0 && c.numAckPending === 0)) return false;
          const invoices = await allInvoices();
          const auto = new Set(invoices.map((i) => i.sourceTransactionId).filter((id) => id !== null));
          if (captured.some((f) => !auto.has(f.transactionId ?? ''))) return false;
          const mailed = schedules.find((s) => s.emailed)!;
          return (await mail.to(mailed.email)).length >= expectedCycles;
        },
        DRAIN_TIMEOUT_MS,
        500,
      ).catch(() => undefined);
      const outboxLeft = (await unpublishedOutbox(PG_URL, mesh.namespace)).filter((o) => o.count > 0);
      const consumers = await consumerBacklogs(NATS_URL, mesh.namespace);
      const stuck = consumers.filter((c) => c.numPending > 0 || c.numAckPending > 0);
      if (outboxLeft.length) drainProblems.push(`unpublished outbox rows: ${JSON.stringify(outboxLeft)}`);
      if (stuck.length) drainProblems.push(`consumers with a backlog: ${JSON.stringify(stuck)}`);
      if (consumers.length === 0) drainProblems.push('no durable consumers found');

      // ---- invoices: one per paid checkout, numbers unique and gap-free ----
      const invoices = await allInvoices();
      const invoiceProblems: string[] = [];
      const bySource = new Map<string, number>();
      for (const i of invoices)
        if (i.sourceTransactionId) bySource.set(i.sourceTransactionId, (bySource.get(i.sourceTransactionId) ?? 0) + 1);
      for (const f of captured) {
        const n = bySource.get(f.transactionId ?? '') ?? 0;
        if (n !== 1) invoiceProblems.push(`paid flow ${f.n} (${f.transactionId}) has ${n} automatic invoices`);
      }
      const capturedTx = new Set(captured.map((f) => f.transactionId));
      for (const tx of bySource.keys())
        if (!capturedTx.has(tx)) invoiceProblems.push(`invoice for transaction ${tx}, which no buyer paid`);
      const numbers = invoices.map((i) => i.number).filter((n): n is string => n !== null);
      const series = new Map<string, number[]>();
      for (const n of numbers) {
        const m = /^(.*?)(\d+)$/.exec(n);
        if (!m) {
          invoiceProblems.push(`invoice number ${n} has no sequence`);
          continue;
        }
        series.set(m[1]!, [...(series.get(m[1]!) ?? []), Number(m[2])]);
      }
      if (new Set(numbers).size !== numbers.length) invoiceProblems.push('duplicate invoice numbers');
      for (const [prefix, seqs] of series) {
        const sorted = [...seqs].sort((a, b) => a - b);
        const gaps = sorted.filter((s, i) => s !== i + 1);
        if (gaps.length) invoiceProblems.push(`${prefix}: sequence ${sorted.join(',')} is not 1..${sorted.length}`);
      }
      const unnumbered = invoices.filter((i) => i.status !== 'draft' && i.number === null);
      if (unnumbered.length) invoiceProblems.push(`${unnumbered.length} issued invoices without a number`);

      // ---- recurring: each cycle invoiced once, the e-mailed schedule's invoices e-mailed once ----
      const recurringProblems: string[] = [];
      for (const s of schedules) {
        const view = await admin('GET', `/invoices/recurring/${s.id}`);
        const mine = invoices.filter((i) => i.clientId === s.clientId);
        const periods = new Set(mine.map((i) => i.servicePeriod?.start));
        if (view.body.invoicesGenerated !== expectedCycles)
          recurringProblems.push(`${s.email}: ${view.body.invoicesGenerated} cycles generated, ${expectedCycles} due`);
        if (mine.length !== expectedCycles || periods.size !== expectedCycles)
          recurringProblems.push(
            `${s.email}: ${mine.length} invoices over ${periods.size} periods for ${expectedCycles} cycles`,
          );
        if (mine.some((i) => i.status !== 'issued'))
          recurringProblems.push(`${s.email}: statuses ${mine.map((i) => i.status).join(',')}`);
        const got = await mail.to(s.email);
        const expected = s.emailed ? expectedCycles : 0;
        const subjects = new Set(got.map((m) => m.subject));
        if (got.length !== expected || subjects.size !== expected)
          recurringProblems.push(`${s.email}: ${got.length} e-mails (${subjects.size} distinct), ${expected} expected`);
      }
      const roundErrors = rounds.flatMap((r) => r.results.filter((x) => x.error).map((x) => `${x.replica}@${r.k}`));

      // ---- the truth from the system: transaction records, status history, IPN deliveries ----
      const records = new Map<string, TxRecord>();
      for (const f of load.flows.filter((f) => f.transactionId)) {
        const r = await admin('GET', `/transactions/${f.transactionId}`);
        if (r.status === 200) records.set(f.transactionId!, r.body as TxRecord);
        else drainProblems.push(`GET transaction ${f.transactionId} -> ${r.status}`);
      }
      const flowIntents = new Set(load.flows.map((f) => f.paymentIntentId));
      for (const id of sandboxSucceeded)
        if (!flowIntents.has(id)) drainProblems.push(`sandbox captured ${id}, which no buyer paid`);

      const rows = windowTallies(windows);
      for (const f of load.flows) {
        const row = rows[windowIndex(windows, f.startedAt)]!;
        row.started += 1;
        if (f.capturedAt !== undefined) row.captured += 1;
        if (f.failedStep) {
          // A failure counts in the window it happened in (the flow's end).
          const at = windowIndex(windows, f.endedAt ?? f.startedAt);
          rows[at]!.failedSteps += 1;
          // A graceful stop must not fail a buyer's request (no 5xx, no dropped connection).
          if (windows[at]!.graceful) rows[at]!.problems.push(`flow ${f.n} failed at ${f.failedStep}: ${f.error}`);
        }
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

      const spread = [...balancers].map(
        ([service, b]) =>
          `${service} ${Object.values(b.connections())
            .map((n) => String(n))
            .join('/')}`,
      );
      const report = [
        '',
        `two replicas of every service: ${load.flows.length} flows at ${RATE}/s, captured ${captured.length}, ` +
          `IPN POSTs ${ipns.length}, ${invoices.length} invoices, ${rounds.length} recurring rounds x 2 replicas ` +
          `(${expectedCycles} cycles per schedule); test ${((Date.now() - testStartedAt) / 1000).toFixed(0)} s`,
        ...windowTable(windows, rows),
        `drain: ${drainProblems.length ? drainProblems.join('; ') : 'outbox empty, no consumer backlog'}`,
        `invoices: ${invoiceProblems.length ? invoiceProblems.slice(0, 10).join('; ') : `one per paid checkout; numbers unique and gap-free (${[...series].map(([p, s]) => `${p}1..${s.length}`).join(', ')})`}`,
        `recurring: ${recurringProblems.length ? recurringProblems.join('; ') : 'each cycle invoiced once; the e-mailed schedule e-mailed once per cycle'}` +
          (roundErrors.length ? ` (calls refused or cut off: ${roundErrors.join(', ')})` : ''),
        `rate limits: ${rateLimits.join('; ')}`,
        `SIGTERM exits: ${exits.join('; ')}`,
        `handed to each replica (connections to a backend, requests to a gateway): ${spread.join(', ')}`,
        'started/captured/...: flows by the window they started in; failed steps: buyer steps that failed during the window',
        '(recorded, never retried; none allowed but in the SIGKILL window)',
        ...windowProblems(windows, rows),
        '',
      ].join('\n');
      console.log(report);
      writeFileSync(join(mesh.logDir, 'replicas-report.txt'), report);
      writeFileSync(
        join(mesh.logDir, 'replicas-flows.json'),
        JSON.stringify({ windows, rounds, flows: load.flows }, null, 1),
      );

      expect(drainProblems).toEqual([]);
      expect(invoiceProblems).toEqual([]);
      expect(recurringProblems).toEqual([]);
      expect(windows.map((w, i) => ({ fault: w.fault, problems: rows[i]!.problems }))).toEqual(
        windows.map((w) => ({ fault: w.fault, problems: [] })),
      );
      for (const b of balancers.values())
        expect(
          Object.values(b.connections()).every((n) => n > 0),
          `${b.service} replicas both served`,
        ).toBe(true);
      expect(captured.length).toBeGreaterThanOrEqual(WARM_UP + RECOVERED_AFTER);
    },
    10 * 60_000,
  );
});
