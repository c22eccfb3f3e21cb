#!/usr/bin/env node
// Benchmark of the money path (a script, not a test): N concurrent buyers each create a checkout,
// read it, create a transaction, pay in the provider_a sandbox and wait for the verified IPN at a
// local receiver. Prints completed flows per second and p50/p99 end-to-end latency, and, measured
// in the same run, a bare Fastify hello-world's requests per second as the reference ratio.
//
//   node test/bench/pay-flow.mjs [--buyers 10] [--flows 100] [--reference-seconds 5]
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startMesh, freePort, ROOT } from '../../deploy/local/supervisor.mjs';
import { bootstrap } from '../../deploy/local/bootstrap-lib.mjs';
import { newSystemKey } from '../../deploy/local/system-key.mjs';
import { dropNamespace } from '../../deploy/local/namespace.mjs';

const { values: args } = parseArgs({
  options: {
    buyers: { type: 'string', default: '10' },
    flows: { type: 'string', default: '100' },
    'reference-seconds': { type: 'string', default: '5' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
});
const BUYERS = Number(args.buyers);
const FLOWS = Number(args.flows);
const FLOW_TIMEOUT_MS = Number(args['timeout-ms']);

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function json(method, url, { token, body, headers = {} } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** IPN receiver: verifies the signature and resolves the flow waiting for that transaction. */
async function startReceiver(secretOf) {
  const waiters = new Map();
  const early = new Map();
  let badSignatures = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ts = req.headers['x-signature-timestamp'];
      const sig = String(req.headers['x-signature-hmac-sha256'] ?? '');
      const body = JSON.parse(raw.toString('utf8'));
      const expected = createHmac('sha256', secretOf()).update(`${ts}.`).update(raw).digest('hex');
      const ok = sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      if (!ok) badSignatures += 1;
      res.writeHead(ok ? 200 : 400).end();
      if (ok && body.status === 1) {
        const w = waiters.get(body.id);
        if (w) w();
        else early.set(body.id, true);
      }
    });
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/ipn`,
    waitFor(txId) {
      if (early.delete(txId)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no IPN for ${txId} within ${FLOW_TIMEOUT_MS} ms`)), FLOW_TIMEOUT_MS);
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

async function referenceHelloWorld(seconds) {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', `
    const f = require(${JSON.stringify(join(ROOT, 'services/gateway-admin/node_modules/fastify'))})();
    f.get('/', async () => ({ hello: 'world' }));
    f.listen({ port: ${port}, host: '127.0.0.1' }).then(() => console.log('ready'));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => child.stdout.once('data', r));
  const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 10, duration: seconds });
  child.kill();
  return result.requests.average;
}

async function main() {
  const namespace = `bench${Date.now().toString(36)}`;
  const systemApiKey = newSystemKey();
  console.log(`starting mesh (namespace ${namespace})...`);
  const mesh = await startMesh({
    ephemeralPorts: true,
    env: {
      NODE_ENV: 'development',
      PAYMESH_DEV_DEFAULTS: 'true',
      IPN_ALLOWED_TARGETS: '127.0.0.1',
      LOG_LEVEL: 'warn',
      STORE_NAMESPACE: namespace,
      BUS_NAMESPACE: namespace,
      SYSTEM_API_KEY: systemApiKey,
      RATE_LIMIT_ALLOWLIST: '127.0.0.1,::1,::ffff:127.0.0.1',
    },
    onLine: (svc, line) => {
      if (line.includes('"level":50') || line.includes('"level":60')) console.error(`${svc}: ${line}`);
    },
  });
  let receiver;
  try {
    const boot = await bootstrap({
      adminBaseUrl: mesh.adminBaseUrl,
      publicBaseUrl: mesh.publicBaseUrl,
      systemApiKey,
      providerASandboxUrl: mesh.sandboxUrls['sandbox-provider-a'],
    });
    const providerId = boot.providers?.provider_a?.id;
    if (!providerId) throw new Error('bootstrap created no provider_a record (is the sandbox built?)');
    receiver = await startReceiver(() => boot.webhookSigningSecret);
    const origin = 'https://shop.example';

    const latencies = [];
    let failures = 0;
    let next = 0;
    const started = Date.now();
    async function buyer(b) {
      for (;;) {
        const i = next++;
        if (i >= FLOWS) return;
        const t0 = performance.now();
        try {
          const checkout = await json('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
            token: boot.apiKey,
            body: {
              amount: 1999,
              currency: 'EUR',
              email: `buyer${b}@example.com`,
              externalReference: `bench-${i}`,
              returnUrl: 'https://shop.example/return/{transactionId}',
              cancelUrl: 'https://shop.example/cancel/{transactionId}',
              ipnUrl: receiver.url,
              items: [{ name: 'Item', description: 'bench', quantity: 1, unitPrice: 1999, vatRate: 19, itemType: 'digital_service' }],
            },
          });
          await json('GET', `${mesh.publicBaseUrl}/checkouts/${checkout.sessionPublicId}`, { headers: { origin } });
          const tx = await json('POST', `${mesh.publicBaseUrl}/transactions/create`, {
            body: {
              sessionPublicId: checkout.sessionPublicId,
              providerId,
              billingAddress: { name: 'Buyer', email: `buyer${b}@example.com`, line1: 'Main St 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
            },
          });
          const ipn = receiver.waitFor(tx.transactionId);
          const pay = await fetch(tx.redirectUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'outcome=pay',
            redirect: 'manual',
          });
          if (pay.status >= 400) throw new Error(`pay page answered ${pay.status}`);
          await ipn;
          latencies.push(performance.now() - t0);
        } catch (err) {
          failures += 1;
          console.error(`flow ${i}: ${err instanceof Error ? err.message : err}`);
        }
      }
    }
    await Promise.all(Array.from({ length: BUYERS }, (_, b) => buyer(b)));
    const seconds = (Date.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const flowsPerSecond = latencies.length / seconds;
    await mesh.stop();
    console.log('measuring the reference (bare Fastify hello world)...');
    const helloRps = await referenceHelloWorld(Number(args['reference-seconds']));
    console.log('\npay-flow benchmark');
    console.log(`  buyers (concurrency)      ${BUYERS}`);
    console.log(`  flows completed / failed  ${latencies.length} / ${failures}`);
    console.log(`  bad IPN signatures        ${receiver.badSignatures}`);
    console.log(`  completed flows per sec   ${flowsPerSecond.toFixed(2)}`);
    console.log(`  end-to-end latency p50    ${percentile(latencies, 50).toFixed(1)} ms`);
    console.log(`  end-to-end latency p99    ${percentile(latencies, 99).toFixed(1)} ms`);
    console.log(`  reference hello-world     ${helloRps.toFixed(0)} req/s`);
    console.log(`  ratio flows/s : hello rps 1 : ${(helloRps / Math.max(flowsPerSecond, 1e-9)).toFixed(0)}`);
  } finally {
    await receiver?.close();
    await mesh.stop();
    await dropNamespace(namespace).catch((err) => console.error(`cleanup of ${namespace} failed: ${err}`));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
