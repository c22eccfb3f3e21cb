// The mesh under benchmark: all services started by the local supervisor in a throw-away
// namespace, a merchant bootstrapped with a provider_a record, an IPN receiver that verifies
// signatures, and the pay flow (the money path end to end) as one function.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { startMesh, freePort, LOCAL_DEV_ENV } from '../../../deploy/local/supervisor.mjs';
import { bootstrap } from '../../../deploy/local/bootstrap-lib.mjs';
import { newSystemKey } from '../../../deploy/local/system-key.mjs';
import { dropNamespace } from '../../../deploy/local/namespace.mjs';
import { percentile } from './stats.mjs';

export async function json(method, url, { token, body, headers = {} } = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * An error printer that stays readable when something fails at every request: the first `max`
 * messages cut to one short line each, then only a count (`suppressed`).
 */
export function limitedLog(prefix, max = 10) {
  const printer = (msg) => {
    printer.count += 1;
    if (printer.count <= max) console.error(`${prefix} ${String(msg).replace(/\s+/g, ' ').slice(0, 300)}`);
  };
  printer.count = 0;
  Object.defineProperty(printer, 'suppressed', { get: () => Math.max(0, printer.count - max) });
  return printer;
}

/**
 * IPN receiver: verifies the signature (with the signing secret of any of the bench's merchants,
 * `addSecret`) and resolves the flow waiting for that transaction.
 */
async function startReceiver(flowTimeoutMs) {
  const secrets = new Set();
  const waiters = new Map();
  const early = new Set();
  let badSignatures = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = req.headers['x-signature-timestamp'];
      const sig = String(req.headers['x-signature-hmac-sha256'] ?? '');
      const ok = [...secrets].some((secret) => {
        const expected = createHmac('sha256', secret).update(`${ts}.`).update(raw).digest('hex');
        return sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      });
      if (!ok) badSignatures += 1;
      res.writeHead(ok ? 200 : 400).end();
      if (!ok) return;
      const body = JSON.parse(raw.toString('utf8'));
      if (body.status !== 1) return;
      const w = waiters.get(body.id);
      if (w) w();
      else early.add(body.id);
    });
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/ipn`,
    addSecret: (secret) => void secrets.add(secret),
    waitFor(txId) {
      if (early.delete(txId)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          waiters.delete(txId);
          reject(new Error(`no IPN for ${txId} within ${flowTimeoutMs} ms`));
        }, flowTimeoutMs);
        waiters.set(txId, () => {
          clearTimeout(t);
          waiters.delete(txId);
          resolve();
        });
      });
    },
    get badSignatures() {
      return badSignatures;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * Starts the mesh. `profileDir` runs every service under `node --cpu-prof` (profiles are written
 * there when the mesh stops); `logLevel` is the services' LOG_LEVEL.
 */
export async function startBenchMesh({
  logLevel = 'warn',
  profileDir,
  flowTimeoutMs = 60_000,
  onError = console.error,
  onLine,
} = {}) {
  const namespace = `bench${Date.now().toString(36)}`;
  const systemApiKey = newSystemKey();
  const env = {
    // Services default to production; the bench opts into the local development settings.
    ...LOCAL_DEV_ENV,
    LOG_LEVEL: logLevel,
    STORE_NAMESPACE: namespace,
    BUS_NAMESPACE: namespace,
    SYSTEM_API_KEY: systemApiKey,
    RATE_LIMIT_ALLOWLIST: '127.0.0.1,::1,::ffff:127.0.0.1',
  };
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const mesh = await startMesh({
    ephemeralPorts: true,
    env,
    // Each service writes <profileDir>/<service>.cpuprofile when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
    ...(profileDir
      ? { nodeArgs: (svc) => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${svc}.cpuprofile`] }
      : {}),
    onLine: (svc, line) => {
      if (line.includes('"level":50') || line.includes('"level":60')) onError(`${svc}: ${line}`);
      onLine?.(svc, line);
    },
    readyTimeoutMs: 120_000,
  });
  let receiver;
  const stop = async () => {
    await receiver?.close();
    await mesh.stop();
    await dropNamespace(namespace).catch((err) => onError(`cleanup of ${namespace} failed: ${err}`));
  };
  try {
    const boot = await bootstrap({
      adminBaseUrl: mesh.adminBaseUrl,
      publicBaseUrl: mesh.publicBaseUrl,
      systemApiKey,
      providerASandboxUrl: mesh.sandboxUrls['sandbox-provider-a'],
      // The Admin's enrollment link, for the benches that sign in to the dashboard.
      dashboardUrl: mesh.dashboardUrl,
    });
    const providerId = boot.providers?.provider_a?.id;
    if (!providerId) throw new Error('bootstrap created no provider_a record (is the sandbox built?)');
    receiver = await startReceiver(flowTimeoutMs);
    receiver.addSecret(boot.webhookSigningSecret);
    const pids = mesh.pids();
    return { mesh, boot, providerId, receiver, namespace, pids, systemApiKey, flowTimeoutMs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The checkout a merchant's server creates (Admin API body). */
export function checkoutBody(n, ipnUrl, buyer = 0, email = `buyer${buyer}@example.com`) {
  return {
    amount: 1999,
    currency: 'EUR',
    email,
    externalReference: `bench-${n}`,
    returnUrl: 'https://shop.example/return/{transactionId}',
    cancelUrl: 'https://shop.example/cancel/{transactionId}',
    ipnUrl,
    items: [
      { name: 'Item', description: 'bench', quantity: 1, unitPrice: 1999, vatRate: 19, itemType: 'digital_service' },
    ],
  };
}

/**
 * One pay flow: the merchant creates a checkout, the buyer reads it, starts a transaction, pays
 * on the sandbox's hosted page, and the merchant receives the verified IPN. Resolves with the
 * end-to-end latency in ms, the time of each stage (`stages`: create, read, transaction, pay,
 * ipn = from the pay page's answer to the verified IPN, the asynchronous part) and the
 * `transactionId`. `email` is the buyer's (checkout and billing address).
 */
export async function payFlow(ctx, n, buyer, email = `buyer${buyer}@example.com`) {
  const { mesh, boot, providerId, receiver } = ctx;
  const t0 = performance.now();
  const marks = [t0];
  const mark = () => marks.push(performance.now());
  const checkout = await json('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
    token: boot.apiKey,
    body: checkoutBody(n, receiver.url, buyer, email),
  });
  mark();
  await json('GET', `${mesh.publicBaseUrl}/checkouts/${checkout.sessionPublicId}`, {
    headers: { origin: 'https://shop.example' },
  });
  mark();
  const tx = await json('POST', `${mesh.publicBaseUrl}/transactions/create`, {
    body: {
      sessionPublicId: checkout.sessionPublicId,
      providerId,
      billingAddress: {
        name: 'Buyer',
        email,
        line1: 'Main St 1',
        city: 'Berlin',
        postalCode: '10115',
        country: 'DE',
      },
    },
  });
  mark();
  const ipn = receiver.waitFor(tx.transactionId);
  const pay = await fetch(tx.redirectUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'outcome=pay',
    redirect: 'manual',
  });
  await pay.arrayBuffer();
  if (pay.status >= 400) {
    ipn.catch(() => undefined);
    throw new Error(`pay page answered ${pay.status}`);
  }
  mark();
  await ipn;
  mark();
  const names = ['create', 'read', 'transaction', 'pay', 'ipn'];
  return {
    ms: marks[marks.length - 1] - t0,
    stages: Object.fromEntries(names.map((n, i) => [n, marks[i + 1] - marks[i]])),
    transactionId: tx.transactionId,
  };
}

/**
 * Runs pay flows with `buyers` concurrent buyers until `seconds` have passed or `maxFlows` were
 * started; resolves completed count, failures, flows/s and sorted latencies.
 */
export async function payFlowLoad(
  ctx,
  { buyers, seconds, maxFlows = Infinity, firstFlow = 0, onError = console.error },
) {
  const latencies = [];
  const stages = {};
  let failures = 0;
  let next = 0;
  const deadline = Date.now() + seconds * 1000;
  const started = performance.now();
  const buyer = async (b) => {
    while (Date.now() < deadline && next < maxFlows) {
      const n = firstFlow + next++;
      try {
        const flow = await payFlow(ctx, n, b);
        latencies.push(flow.ms);
        for (const [k, v] of Object.entries(flow.stages)) (stages[k] ??= []).push(v);
      } catch (err) {
        failures += 1;
        onError(`flow ${n}: ${err instanceof Error ? err.message : err}`);
      }
    }
  };
  await Promise.all(Array.from({ length: buyers }, (_, b) => buyer(b)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const stageP50 = Object.fromEntries(
    Object.entries(stages).map(([k, v]) => [
      k,
      percentile(
        v.sort((a, b) => a - b),
        50,
      ),
    ]),
  );
  return {
    completed: latencies.length,
    failures,
    elapsed,
    flowsPerSecond: latencies.length / elapsed,
    latencies,
    stageP50,
    started: next,
  };
}
