// Reference measurements for `pnpm bench`, taken in the same run on the same machine as the mesh:
// (a) bare Fastify hello world, (b) a minimal HTTP -> gRPC -> PostgreSQL indexed read built from
// the libraries the mesh uses, (c) a JetStream publish -> pull-consume round trip.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { connect, AckPolicy, headers as natsHeaders } from 'nats';
import { percentile } from './stats.mjs';
import { cpuMs } from './procs.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = join(HERE, '..', '..', '..');

/** Starts a helper script that prints one JSON line when ready; resolves { child, info }. */
export async function startHelper(script, env = {}) {
  const child = spawn(process.execPath, [join(HERE, script)], {
    env: { ...process.env, BENCH_ROOT: ROOT, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  return {
    child,
    info,
    stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
  };
}

/**
 * HTTP load with autocannon: requests per second, latency p50/p99 in ms, and failures.
 * `cpuPids` (name -> pid) adds the CPU ms those processes spent per successful request.
 */
export async function httpLoad({
  url,
  connections,
  seconds,
  method = 'GET',
  headers = {},
  body,
  setupRequest,
  cpuPids,
}) {
  const before = cpuPids ? Object.fromEntries(Object.entries(cpuPids).map(([n, p]) => [n, cpuMs(p)])) : undefined;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method,
    headers,
    ...(body ? { body } : {}),
    ...(setupRequest ? { requests: [{ setupRequest }] } : {}),
  });
  const ok = result['2xx'];
  let cpuMsPerRequest;
  if (before) {
    let total = 0;
    for (const [n, p] of Object.entries(cpuPids)) total += cpuMs(p) - before[n];
    cpuMsPerRequest = total / Math.max(ok, 1);
  }
  return {
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
    ...(cpuMsPerRequest !== undefined ? { cpuMsPerRequest } : {}),
  };
}

/** (a) bare Fastify hello world. */
export async function helloWorld({ seconds, connections }) {
  const h = await startHelper('hello.mjs');
  try {
    await httpLoad({ url: `http://127.0.0.1:${h.info.port}/`, connections, seconds: 1 }); // warm-up
    return await httpLoad({
      url: `http://127.0.0.1:${h.info.port}/`,
      connections,
      seconds,
      cpuPids: { hello: h.child.pid },
    });
  } finally {
    await h.stop();
  }
}

/** Sequential requests with fetch (the pay flow's client) for `seconds`: precise unloaded latency. */
export async function sequentialLatency(url, seconds, headers = {}) {
  const latencies = [];
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.ok) latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: latencies.length };
}

/**
 * (b) the raw chain: Fastify -> @grpc/grpc-js -> pg indexed read (JSONB documents, 20,000 rows in
 * 10,000 organizations), two processes like a gateway and a backend. Stays up for the whole run so
 * it can be measured again right beside each mesh route (the machine's load changes by the minute).
 */
export async function startRawChain({ pgUrl }) {
  const schema = `benchraw_${Date.now().toString(36)}`;
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  let grpcSrv;
  let http;
  const stop = async () => {
    await http?.stop();
    await grpcSrv?.stop();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await db.end();
  };
  try {
    await db.query(`CREATE SCHEMA "${schema}"`);
    await db.query(`CREATE TABLE "${schema}".sites (id serial PRIMARY KEY, org_id text NOT NULL, doc jsonb NOT NULL)`);
    await db.query(`CREATE INDEX ON "${schema}".sites (org_id)`);
    await db.query(
      `INSERT INTO "${schema}".sites (org_id, doc)
       SELECT 'org' || (g % 10000), jsonb_build_object('id', 'site' || g, 'name', 'Shop ' || g, 'url', 'https://shop' || g || '.example', 'createdAt', now())
       FROM generate_series(1, 20000) g`,
    );
    await db.query(`ANALYZE "${schema}".sites`);
    grpcSrv = await startHelper('raw-grpc.mjs', { BENCH_PG_URL: pgUrl, BENCH_SCHEMA: schema });
    http = await startHelper('raw-http.mjs', { BENCH_GRPC_PORT: String(grpcSrv.info.port) });
  } catch (err) {
    await stop();
    throw err;
  }
  const url = `http://127.0.0.1:${http.info.port}/sites/org42`;
  const pids = { http: http.child.pid, grpc: grpcSrv.child.pid };
  await httpLoad({ url, connections: 10, seconds: 1 }); // warm-up (JIT, pools)
  return {
    url,
    pids,
    load: ({ seconds, connections }) => httpLoad({ url, connections, seconds, cpuPids: pids }),
    unloaded: (seconds) => sequentialLatency(url, seconds),
    stop,
  };
}

/**
 * (c) JetStream round trip: `inFlight` publishers each publish (awaiting the stream's ack) and wait
 * until a durable pull consumer has received and acknowledged that message.
 */
export async function jetstreamRoundTrip({ seconds, inFlight, natsUrl }) {
  const nc = await connect({ servers: natsUrl });
  const stream = `BENCHRT_${Date.now().toString(36).toUpperCase()}`;
  const subject = `${stream.toLowerCase()}.ping`;
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.add({ name: stream, subjects: [subject] });
    await jsm.consumers.add(stream, { durable_name: 'rt', ack_policy: AckPolicy.Explicit });
    const js = nc.jetstream();
    const consumer = await js.consumers.get(stream, 'rt');
    const waiters = new Map();
    const messages = await consumer.consume({ max_messages: 256 });
    const pump = (async () => {
      for await (const m of messages) {
        m.ack();
        const id = m.headers?.get('Nats-Msg-Id');
        const w = waiters.get(id);
        if (w) {
          waiters.delete(id);
          w();
        }
      }
    })();
    const latencies = [];
    let n = 0;
    const deadline = Date.now() + seconds * 1000;
    const worker = async () => {
      while (Date.now() < deadline) {
        const id = `m${n++}`;
        const t0 = performance.now();
        const got = new Promise((r) => waiters.set(id, r));
        const h = natsHeaders();
        await js.publish(subject, new TextEncoder().encode('{"ping":true}'), { msgID: id, headers: h });
        await got;
        latencies.push(performance.now() - t0);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const elapsed = (performance.now() - started) / 1000;
    messages.stop();
    await pump;
    latencies.sort((a, b) => a - b);
    return {
      rps: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      requests: latencies.length,
      failed: 0,
    };
  } finally {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  }
}
