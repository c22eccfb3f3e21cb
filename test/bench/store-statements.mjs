#!/usr/bin/env node
// Counts the datastore statements one pay flow costs across the mesh (a script, not a test). Runs
// the mesh twice, with a few and with more sequential flows (checkout, public view, transaction,
// pay in the provider_a sandbox, verified IPN); every service logs its store's statement counter
// (`store.stats()`) as "store statements" when it stops. The difference between the two runs,
// divided by the difference in flows, is the per-flow count without start-up and bootstrap.
//
//   node test/bench/store-statements.mjs [--few 5] [--many 25]
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { startMesh, freePort } from '../../deploy/local/supervisor.mjs';
import { bootstrap } from '../../deploy/local/bootstrap-lib.mjs';
import { newSystemKey } from '../../deploy/local/system-key.mjs';
import { dropNamespace } from '../../deploy/local/namespace.mjs';

const { values: args } = parseArgs({ options: { few: { type: 'string', default: '5' }, many: { type: 'string', default: '25' } } });

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

/** IPN receiver resolving, per transaction, once a correctly signed "completed" IPN arrived. */
async function startReceiver(secretOf) {
  const waiters = new Map();
  const arrived = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const sig = String(req.headers['x-signature-hmac-sha256'] ?? '');
      const expected = createHmac('sha256', secretOf()).update(`${req.headers['x-signature-timestamp']}.`).update(raw).digest('hex');
      const ok = sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      res.writeHead(ok ? 200 : 400).end();
      const body = JSON.parse(raw.toString('utf8'));
      if (!ok || body.status !== 1) return;
      arrived.add(body.id);
      waiters.get(body.id)?.();
    });
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/ipn`,
    waitFor: (id) =>
      arrived.has(id)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const t = setTimeout(() => reject(new Error(`no IPN for ${id}`)), 60_000);
            waiters.set(id, () => (clearTimeout(t), resolve()));
          }),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** One mesh, `flows` sequential pay flows; returns the statements each service counted. */
async function run(flows) {
  const namespace = `stmts${Date.now().toString(36)}`;
  const systemApiKey = newSystemKey();
  const stats = {};
  const mesh = await startMesh({
    ephemeralPorts: true,
    readyTimeoutMs: 240_000,
    env: { NODE_ENV: 'development', LOG_LEVEL: 'info', STORE_NAMESPACE: namespace, BUS_NAMESPACE: namespace, SYSTEM_API_KEY: systemApiKey },
    onLine: (svc, line) => {
      if (!line.includes('"store statements"')) return;
      stats[svc] = JSON.parse(line.slice(line.indexOf('{'))).storeStats.statements;
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
    for (let i = 0; i < flows; i++) {
      const checkout = await json('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
        token: boot.apiKey,
        body: {
          amount: 1999,
          currency: 'EUR',
          email: 'buyer@example.com',
          externalReference: `stmts-${i}`,
          returnUrl: 'https://shop.example/return/{transactionId}',
          cancelUrl: 'https://shop.example/cancel/{transactionId}',
          ipnUrl: receiver.url,
          items: [{ name: 'Item', description: 'statements', quantity: 1, unitPrice: 1999, vatRate: 19, itemType: 'digital_service' }],
        },
      });
      await json('GET', `${mesh.publicBaseUrl}/checkouts/${checkout.sessionPublicId}`, { headers: { origin: 'https://shop.example' } });
      const tx = await json('POST', `${mesh.publicBaseUrl}/transactions/create`, {
        body: {
          sessionPublicId: checkout.sessionPublicId,
          providerId,
          billingAddress: { name: 'Buyer', email: 'buyer@example.com', line1: 'Main St 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
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
    }
  } finally {
    await receiver?.close();
    await mesh.stop();
    await dropNamespace(namespace).catch((err) => console.error(`cleanup of ${namespace} failed: ${err}`));
  }
  return stats;
}

const few = Number(args.few);
const many = Number(args.many);
const a = await run(few);
const b = await run(many);
console.log(`\nstore statements per pay flow ((${many}-flow run - ${few}-flow run) / ${many - few})`);
let total = 0;
for (const svc of Object.keys(b).sort()) {
  const perFlow = ((b[svc] ?? 0) - (a[svc] ?? 0)) / (many - few);
  total += perFlow;
  console.log(`  ${svc.padEnd(20)} ${perFlow.toFixed(1)}`);
}
console.log(`  ${'total'.padEnd(20)} ${total.toFixed(1)}`);
