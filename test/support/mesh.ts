import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startMesh, LOCAL_DEV_ENV, ROOT, type Mesh } from '../../deploy/local/supervisor.mjs';
import { bootstrap, type BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { newSystemKey } from '../../deploy/local/system-key.mjs';
import { dropNamespace as dropNamespaceOf } from '../../deploy/local/namespace.mjs';
import { setGrpcSecurity } from '../../libs/grpc/src/security';
import { TEST_PG_URL, waitFor } from './kit';

export const PG_URL = TEST_PG_URL;
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface TestMesh extends Mesh {
  namespace: string;
  systemApiKey: string;
  logDir: string;
  bootstrap(opts?: { mode?: 'live' | 'test' }): Promise<BootstrapResult>;
  /** Every log line of a service written so far, parsed where it is JSON. */
  logs(service: string): string[];
  /** Stops the mesh and removes its schemas and streams. */
  dispose(): Promise<void>;
}

export interface TestMeshOptions {
  /** Datastore URL the services use (default: the machine's PostgreSQL). */
  storeUrl?: string;
  /** NATS the services use (default: the machine's NATS), e.g. a private server a suite restarts. */
  natsUrl?: string;
  /** Extra environment; an entry set to undefined removes that variable. */
  env?: Record<string, string | undefined>;
  /** Also receives every output line of every process as it arrives. */
  onLine?: (service: string, line: string) => void;
  /** Processes per backend and gateway (default 1); replica n > 1 is named `<service>#<n>`. */
  replicas?: number;
  /** Port where callers reach a service (a balancer in front of its replicas, see support/balancer). */
  fronts?: Record<string, number>;
}

/**
 * Starts all services on free ports in a namespace of their own (PostgreSQL schemas and JetStream
 * streams prefixed with it), so suites can run beside each other on one machine.
 */
export async function startTestMesh(opts: TestMeshOptions = {}): Promise<TestMesh> {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const systemApiKey = newSystemKey();
  const logDir = join(ROOT, '.run', 'test-logs', namespace);
  const lines = new Map<string, string[]>();
  const mesh = await startMesh({
    ephemeralPorts: true,
    logDir,
    ...(opts.replicas ? { replicas: opts.replicas } : {}),
    ...(opts.fronts ? { fronts: opts.fronts } : {}),
    env: {
      // Services default to production; the suites opt into the local development settings
      // (published development secrets, IPN to receivers on 127.0.0.1), as tests.
      ...LOCAL_DEV_ENV,
      NODE_ENV: 'test',
      LOG_LEVEL: 'debug',
      STORE_URL: opts.storeUrl ?? PG_URL,
      STORE_NAMESPACE: namespace,
      // Several meshes (and the integration suites) share the machine's PostgreSQL and its
      // max_connections (100 by default): each service process keeps a pool of at most 6.
      STORE_POOL_MAX: '6',
      BUS_NAMESPACE: namespace,
      // JetStream reserves every stream's cap from its storage (75 % of the free disk by default):
      // at 1 GiB a stream, a few meshes and the streams a killed run left fill it. 64 MiB holds
      // far more than any suite publishes.
      BUS_STREAM_MAX_BYTES: String(64 * 1024 * 1024),
      NATS_URL: opts.natsUrl ?? NATS_URL,
      SYSTEM_API_KEY: systemApiKey,
      // Suites talk to the gateways from loopback in bursts; a suite that tests rate limits calls from another loopback address.
      RATE_LIMIT_ALLOWLIST: '127.0.0.1,::1',
      ...(opts.env ?? {}),
    },
    onLine: (svc, line) => {
      const arr = lines.get(svc) ?? [];
      arr.push(line);
      lines.set(svc, arr);
      opts.onLine?.(svc, line);
    },
    readyTimeoutMs: 90_000,
  });
  // Suites that call backends directly do so as a mesh member (backend gRPC is mutual TLS).
  setGrpcSecurity(mesh.clientSecurity);
  return {
    ...mesh,
    namespace,
    systemApiKey,
    logDir,
    bootstrap: (o = {}) =>
      bootstrap({
        adminBaseUrl: mesh.adminBaseUrl,
        publicBaseUrl: mesh.publicBaseUrl,
        systemApiKey,
        dashboardUrl: mesh.dashboardUrl,
        ...(o.mode ? { mode: o.mode } : {}),
        ...(mesh.sandboxUrls['sandbox-provider-a']
          ? { providerASandboxUrl: mesh.sandboxUrls['sandbox-provider-a'] }
          : {}),
        ...(mesh.sandboxUrls['sandbox-provider-b']
          ? { providerBSandboxUrl: mesh.sandboxUrls['sandbox-provider-b'] }
          : {}),
        ...(mesh.sandboxUrls['sandbox-provider-c']
          ? { providerCSandboxUrl: mesh.sandboxUrls['sandbox-provider-c'] }
          : {}),
        ...(mesh.sandboxUrls['sandbox-provider-d']
          ? { providerDSandboxUrl: mesh.sandboxUrls['sandbox-provider-d'] }
          : {}),
      }),
    logs: (svc) => [...(lines.get(svc) ?? [])],
    async dispose() {
      await mesh.stop();
      await dropNamespace(namespace, opts.natsUrl);
    },
  };
}

/** Removes a test namespace's PostgreSQL schemas and JetStream streams. */
export function dropNamespace(namespace: string, natsUrl = NATS_URL): Promise<void> {
  return dropNamespaceOf(namespace, { pgUrl: PG_URL, natsUrl });
}

/** Polls `fn` until it returns a truthy value or the time is up (the kit's `waitFor`). */
export function eventually<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  stepMs = 100,
): Promise<T> {
  return waitFor(fn, { timeoutMs, stepMs });
}

/** fetch with JSON in and out. */
export async function api(
  method: string,
  url: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(opts.headers ?? {}),
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** The first JSON log line of `service` carrying `requestId` (as requestId or reqId) that matches `pred`. */
export function logLineOf(
  mesh: Pick<TestMesh, 'logs'>,
  service: string,
  requestId: string,
  pred: (line: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  return mesh
    .logs(service)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => (l.requestId === requestId || l.reqId === requestId) && pred(l));
}
