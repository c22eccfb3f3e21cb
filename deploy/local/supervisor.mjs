// Process supervisor for the whole mesh: used by `pnpm start` (foreground, prefixed logs) and by
// the black-box test harness (ephemeral ports, isolated namespace, logs kept for assertions).
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { createRequire } from 'node:module';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureMeshCerts, grpcTlsEnv } from './certs.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/** Backend services (gRPC), in start order, with their default ports. */
export const BACKENDS = [
  ['checkout', 50051],
  ['payments-webhooks', 50052],
  ['billing', 50053],
  ['tax', 50054],
  ['recurring', 50055],
  ['documents', 50056],
  ['notifications-ipn', 50057],
];

/**
 * What a local run on this machine opts into (services default to production): the published
 * development secrets, and IPN to a receiver on loopback. Tests and benchmarks use it as it is.
 */
export const LOCAL_DEV_ENV = Object.freeze({
  NODE_ENV: 'development',
  PAYMESH_DEV_DEFAULTS: 'true',
  IPN_ALLOWED_TARGETS: '127.0.0.1',
});

/**
 * Sandboxes started beside the mesh (only those built in this checkout): [package dir, env prefix,
 * default port, extra ports?]. Every service gets `<prefix>_URL` (e.g. VIES_SANDBOX_URL); the
 * services that talk to the real counterpart take it as their default base URL when it is set.
 * An extra port `{ SMTP: 12125 }` is passed as `<prefix>_SMTP_PORT` to the sandbox and to every
 * service (the mail catcher's SMTP listener; notifications-ipn sends there unless SMTP_HOST is set).
 */
export const SANDBOXES = [
  ['provider-a', 'PROVIDER_A_SANDBOX', 12111],
  ['provider-b', 'PROVIDER_B_SANDBOX', 12141],
  ['provider-c', 'PROVIDER_C_SANDBOX', 12151],
  ['provider-d', 'PROVIDER_D_SANDBOX', 12161],
  ['vies', 'VIES_SANDBOX', 12121],
  ['ecb', 'ECB_SANDBOX', 12171],
  ['mail', 'MAIL_SANDBOX', 12131, { SMTP: 12125 }],
];

export const GATEWAYS = [
  ['gateway-admin', 8080],
  ['gateway-public', 8081],
];

/** Process names of a service's replicas: the service's own name, then `<service>#2`, `<service>#3`, … */
export function replicaNames(service, replicas = 1) {
  return Array.from({ length: replicas }, (_, i) => (i === 0 ? service : `${service}#${i + 1}`));
}

const envName = (svc) => `${svc.replace(/-/g, '_').toUpperCase()}_GRPC_ADDR`;

// Ports handed to test and bench meshes come from 20000-32699, below Linux's default ephemeral range
// (32768-60999): the kernel never gives these to outgoing connections, so a port found free stays
// free until its service binds it. Each process claims a block of them with a lock file (several
// test workers start meshes at once), checks each port before handing it out, and takes another
// block when one runs out.
const PORT_FIRST = 20000;
const PORT_BLOCK = 50;
const PORT_BLOCKS = Math.floor((32700 - PORT_FIRST) / PORT_BLOCK);
const PORT_LOCK_DIR = join(tmpdir(), 'paymesh-port-blocks');
let portCursor = null;

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function tryLock(path) {
  try {
    writeFileSync(path, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  let owner = 0;
  try {
    owner = Number(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
  if (owner && pidAlive(owner)) return false;
  // The owner is gone: take the block over (rename is atomic, so one taker wins).
  const mine = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, mine);
    rmSync(mine, { force: true });
  } catch {
    return false;
  }
  return tryLock(path);
}

function claimPortBlock(skip) {
  mkdirSync(PORT_LOCK_DIR, { recursive: true });
  const start = (process.pid * 7 + skip) % PORT_BLOCKS;
  for (let i = 0; i < PORT_BLOCKS; i++) {
    const b = (start + i) % PORT_BLOCKS;
    const path = join(PORT_LOCK_DIR, `${b}.lock`);
    if (!tryLock(path)) continue;
    process.once('exit', () => rmSync(path, { force: true }));
    return { next: PORT_FIRST + b * PORT_BLOCK, end: PORT_FIRST + (b + 1) * PORT_BLOCK, claimed: 1 + skip };
  }
  throw new Error(`no free block of ${PORT_BLOCK} ports in ${PORT_FIRST}-${PORT_FIRST + PORT_BLOCKS * PORT_BLOCK - 1}`);
}

function canBind(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1 that no other process of this machine is handed (see above). */
export async function freePort() {
  for (;;) {
    if (!portCursor || portCursor.next >= portCursor.end) portCursor = claimPortBlock(portCursor?.claimed ?? 0);
    const port = portCursor.next++;
    if (await canBind(port)) return port;
  }
}

/** Resolves true when host:port accepts a TCP connection within `timeoutMs`. */
export function tcpReachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

async function httpHealthy(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Name of the certificate the supervisor (and a test harness beside it) calls backends with. */
export const CLIENT_CERT_NAME = 'mesh-client';

function grpcLib() {
  return require(join(ROOT, 'libs/grpc/dist/index.js'));
}

async function grpcHealthy(addr, security) {
  return grpcLib().checkHealth(addr, 1000, security);
}

/**
 * Starts every service as a child process.
 * @param {object} opts
 * @param {Record<string,string>} [opts.env] extra environment for every child
 * @param {boolean} [opts.ephemeralPorts] pick free ports instead of the defaults
 * @param {(service: string, line: string) => void} [opts.onLine] receives every output line
 * @param {string} [opts.logDir] also write each service's output to <logDir>/<service>.log
 * @param {number} [opts.readyTimeoutMs]
 * @param {AbortSignal} [opts.signal] aborting stops every launched process (also during start-up)
 * @param {string} [opts.certDir] where the local mesh CA and certificates live (default: .run/certs,
 *   or a directory of this run with ephemeral ports, removed when the mesh stops); unused with GRPC_INSECURE=true
 * @param {(service: string) => string[]} [opts.nodeArgs] extra node options per service (e.g. --cpu-prof)
 * @param {number} [opts.replicas] processes per backend and gateway (default 1; more needs ephemeralPorts).
 *   Replica 1 is named after its service, replica n > 1 `<service>#<n>`; each listens on a port of its own.
 * @param {Record<string, number>} [opts.fronts] port on 127.0.0.1 where callers reach a service instead of
 *   replica 1 (a load balancer the caller runs in front of the replicas, as a Kubernetes Service is):
 *   used in `<SERVICE>_GRPC_ADDR`, the public root URL and the gateways' base URLs
 */
export async function startMesh(opts = {}) {
  const env = { ...process.env, ...(opts.env ?? {}) };
  // An env entry given as undefined removes the variable (e.g. to start without NODE_ENV).
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete env[k];
  const replicas = opts.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new Error(`replicas must be a positive integer, not ${replicas}`);
  if (replicas > 1 && !opts.ephemeralPorts) throw new Error('more than one replica needs ephemeralPorts');
  const ports = {};
  for (const [name, def] of [...BACKENDS, ...GATEWAYS]) {
    for (const instance of replicaNames(name, replicas)) ports[instance] = opts.ephemeralPorts ? await freePort() : def;
  }
  if (!opts.ephemeralPorts) {
    if (env.ADMIN_PORT) ports['gateway-admin'] = Number(env.ADMIN_PORT);
    if (env.PUBLIC_PORT) ports['gateway-public'] = Number(env.PUBLIC_PORT);
  }
  const host = '127.0.0.1';
  /** Where callers reach a service: its front (balancer) when given, else replica 1. */
  const front = (name) => opts.fronts?.[name] ?? ports[name];
  const shared = {};
  for (const [name] of BACKENDS) shared[envName(name)] = `${host}:${front(name)}`;
  // No load balancer sends a local gateway traffic it could move elsewhere: a stop need not wait
  // for keep-alive clients to go (HTTP_DRAIN_MS), unless the run asks for it.
  if (env.HTTP_DRAIN_MS === undefined) shared.HTTP_DRAIN_MS = '0';
  // Root URL providers call back (webhook endpoints): gateway-public, unless the run is told
  // otherwise (a tunnel URL in PUBLIC_ROOT_URL; an ephemeral run only through opts.env).
  const localPublicRoot = `http://${host}:${front('gateway-public')}`;
  shared.PUBLIC_ROOT_URL = opts.ephemeralPorts
    ? (opts.env?.PUBLIC_ROOT_URL ?? localPublicRoot)
    : (env.PUBLIC_ROOT_URL ?? localPublicRoot);
  // The hosted checkout page is served by gateway-public: payment URLs point at it (`/c/<session>`)
  // and its origin is the main frontend the Main Backend always allows, unless the run names
  // another checkout host (CHECKOUT_FRONTEND_URL, MAIN_FRONTEND_ORIGIN).
  const checkoutFrontend =
    (opts.ephemeralPorts ? opts.env?.CHECKOUT_FRONTEND_URL : env.CHECKOUT_FRONTEND_URL) ?? shared.PUBLIC_ROOT_URL;
  shared.CHECKOUT_FRONTEND_URL = checkoutFrontend;
  shared.MAIN_FRONTEND_ORIGIN =
    (opts.ephemeralPorts ? opts.env?.MAIN_FRONTEND_ORIGIN : env.MAIN_FRONTEND_ORIGIN) ??
    new URL(checkoutFrontend).origin;
  // The buyer portal page is served by gateway-public too (`/portal/<organizationId>`); magic links
  // made by gateway-admin point at `<PORTAL_PUBLIC_URL>/magic-link#token=...`.
  shared.PORTAL_PUBLIC_URL =
    (opts.ephemeralPorts ? opts.env?.PORTAL_PUBLIC_URL : env.PORTAL_PUBLIC_URL) ??
    `${shared.PUBLIC_ROOT_URL.replace(/\/+$/, '')}/portal`;

  // Backend gRPC runs on mutual TLS with a local CA: each process gets its own certificate.
  const insecure = ['true', '1', 'yes'].includes(String(env.GRPC_INSECURE ?? ''));
  // A run without a log directory gets a temporary one for its certificates, removed on stop.
  const tempCertRoot =
    !opts.certDir && opts.ephemeralPorts && !opts.logDir ? mkdtempSync(join(tmpdir(), 'paymesh-mesh-')) : undefined;
  const certDir =
    opts.certDir ?? (opts.ephemeralPorts ? join(opts.logDir ?? tempCertRoot, 'certs') : join(ROOT, '.run', 'certs'));
  const certs = insecure
    ? undefined
    : await ensureMeshCerts(certDir, [...[...BACKENDS, ...GATEWAYS].map(([n]) => n), CLIENT_CERT_NAME]);
  const tlsEnv = (name) => (certs ? grpcTlsEnv(certs, name) : {});
  const clientTls = certs ? grpcTlsEnv(certs, CLIENT_CERT_NAME) : undefined;
  const clientSecurity = clientTls
    ? {
        kind: 'mtls',
        tls: grpcLib().readMeshTls({
          caFile: clientTls.GRPC_TLS_CA_FILE,
          certFile: clientTls.GRPC_TLS_CERT_FILE,
          keyFile: clientTls.GRPC_TLS_KEY_FILE,
        }),
      }
    : { kind: 'insecure' };

  const sandboxes = [];
  for (const [name, prefix, def, extraPorts = {}] of SANDBOXES) {
    const main = join(ROOT, 'sandboxes', name, 'dist/main.js');
    if (!existsSync(main)) continue;
    const port = opts.ephemeralPorts ? await freePort() : Number(env[`${prefix}_PORT`] ?? def);
    ports[`sandbox-${name}`] = port;
    shared[`${prefix}_URL`] = `http://${host}:${port}`;
    const sandboxEnv = { [`${prefix}_HOST`]: host, [`${prefix}_PORT`]: String(port) };
    for (const [kind, extraDef] of Object.entries(extraPorts)) {
      const key = `${prefix}_${kind}_PORT`;
      const extra = opts.ephemeralPorts ? await freePort() : Number(env[key] ?? extraDef);
      ports[`sandbox-${name}-${kind.toLowerCase()}`] = extra;
      shared[key] = String(extra);
      sandboxEnv[key] = String(extra);
    }
    sandboxes.push({ name: `sandbox-${name}`, main, env: sandboxEnv });
  }

  const specs = [
    ...sandboxes.map((s) => ({ ...s, health: () => httpHealthy(`http://${host}:${ports[s.name]}/health`) })),
    ...BACKENDS.flatMap(([service]) =>
      replicaNames(service, replicas).map((name) => ({
        name,
        service,
        main: join(ROOT, 'services', service, 'dist/main.js'),
        env: { GRPC_HOST: host, GRPC_PORT: String(ports[name]), ...tlsEnv(service) },
        health: () => grpcHealthy(`${host}:${ports[name]}`, clientSecurity),
      })),
    ),
    ...GATEWAYS.flatMap(([service]) =>
      replicaNames(service, replicas).map((name) => ({
        name,
        service,
        main: join(ROOT, 'services', service, 'dist/main.js'),
        env: { HOST: host, PORT: String(ports[name]), ...tlsEnv(service) },
        health: () => httpHealthy(`http://${host}:${ports[name]}/health`),
      })),
    ),
  ];

  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });
  const procs = new Map();
  const tails = new Map();

  function launch(spec) {
    const child = spawn(process.execPath, ['--enable-source-maps', ...(opts.nodeArgs?.(spec.name) ?? []), spec.main], {
      env: {
        ...env,
        ...shared,
        ...spec.env,
        SERVICE_NAME: spec.service ?? spec.name,
        OTEL_SERVICE_NAME: spec.service ?? spec.name,
        EXIT_WITH_PARENT: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const file = opts.logDir ? createWriteStream(join(opts.logDir, `${spec.name}.log`), { flags: 'a' }) : undefined;
    const tail = tails.get(spec.name) ?? [];
    tails.set(spec.name, tail);
    const onData = (buf) => {
      for (const line of buf.toString().split('\n')) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > 40) tail.shift();
        file?.write(`${line}\n`);
        opts.onLine?.(spec.name, line);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const entry = { spec, child, exited: false, code: null, file };
    child.on('exit', (code, signal) => {
      entry.exited = true;
      entry.code = code ?? signal;
      opts.onExit?.(spec.name, code, signal);
    });
    // 'close' comes after the last output: ending the log file on 'exit' could lose (and fail on) lines still in the pipes.
    child.on('close', () => file?.end());
    procs.set(spec.name, entry);
    return entry;
  }

  async function waitHealthy(names, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    const pending = new Set(names);
    while (pending.size) {
      if (opts.signal?.aborted) throw new Error('start cancelled');
      for (const name of [...pending]) {
        const p = procs.get(name);
        if (p.exited) {
          throw new Error(`${name} exited (${p.code}) during start:\n${(tails.get(name) ?? []).slice(-15).join('\n')}`);
        }
        if (await p.spec.health()) pending.delete(name);
      }
      if (!pending.size) break;
      if (Date.now() > deadline) {
        const detail = [...pending]
          .map((n) => `--- ${n} ---\n${(tails.get(n) ?? []).slice(-10).join('\n')}`)
          .join('\n');
        throw new Error(`not healthy after ${timeoutMs} ms: ${[...pending].join(', ')}\n${detail}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Signals a process and waits for its exit; SIGKILL after `graceMs`. Resolves how it ended. */
  async function stopOne(name, signal = 'SIGTERM', graceMs = 10_000) {
    const p = procs.get(name);
    if (!p || p.exited) return undefined;
    const started = Date.now();
    const exited = new Promise((r) => p.child.once('exit', (code, sig) => r({ code, signal: sig })));
    let forced = false;
    p.child.kill(signal);
    const t = setTimeout(() => {
      forced = true;
      p.child.kill('SIGKILL');
    }, graceMs);
    const how = await exited;
    clearTimeout(t);
    return { ...how, forced, ms: Date.now() - started };
  }

  const mesh = {
    ports,
    env: { ...shared },
    adminBaseUrl: `http://${host}:${front('gateway-admin')}/api/v1`,
    publicBaseUrl: `http://${host}:${front('gateway-public')}/api/v1`,
    publicRootUrl: localPublicRoot,
    /** Hosted checkout address: payment URLs are `<this>/c/<sessionPublicId>`. */
    checkoutFrontendUrl: checkoutFrontend,
    sandboxUrls: Object.fromEntries(sandboxes.map((s) => [s.name, `http://${host}:${ports[s.name]}`])),
    services: specs.map((s) => s.name),
    /** gRPC client credentials of this mesh (a @paymesh/grpc GrpcSecurity), for calling backends directly. */
    clientSecurity,
    /** Service name -> pid of its current process. */
    pids: () => Object.fromEntries([...procs].filter(([, p]) => !p.exited).map(([n, p]) => [n, p.child.pid])),
    /** Last output lines of a service. */
    tail: (name) => [...(tails.get(name) ?? [])],
    /** Process names of a service's replicas (replica 1 first). */
    replicas: (service) => replicaNames(service, replicas),
    /** Kills a service abruptly (SIGKILL), as a crash would. */
    async kill(name) {
      await stopOne(name, 'SIGKILL');
    },
    /**
     * Sends SIGTERM, as Kubernetes does to a pod it stops, and waits until the process exits on its
     * own (SIGKILL after `graceMs`, then `forced` is true). Resolves its exit code or signal.
     */
    async terminate(name, graceMs = 30_000) {
      const how = await stopOne(name, 'SIGTERM', graceMs);
      if (!how) throw new Error(`${name} is not running`);
      return how;
    },
    /** Starts a stopped or killed service again and waits until it is healthy. */
    async restart(name, timeoutMs = 30_000) {
      await stopOne(name);
      launch(specs.find((s) => s.name === name));
      await waitHealthy([name], timeoutMs);
    },
    async stop() {
      const order = [
        ...[...GATEWAYS, ...BACKENDS].flatMap(([n]) => replicaNames(n, replicas)),
        ...sandboxes.map((s) => s.name),
      ];
      await Promise.all(order.map((n) => stopOne(n)));
      if (tempCertRoot) rmSync(tempCertRoot, { recursive: true, force: true });
    },
  };

  for (const spec of specs) launch(spec);
  opts.signal?.addEventListener('abort', () => void mesh.stop(), { once: true });
  try {
    await waitHealthy(
      specs.map((s) => s.name),
      opts.readyTimeoutMs ?? 60_000,
    );
  } catch (err) {
    await mesh.stop();
    throw err;
  }
  return mesh;
}
