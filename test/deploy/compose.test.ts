import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runtimePlan } from '../../deploy/image/runtime-tree.mjs';
import { recurringIntervalMs } from '../../deploy/local/recurring-timer.mjs';
import { eventually } from '../support/mesh';
import { BACKEND_SERVICES, grpcAddrEnvName, type BackendService } from '../../libs/runtime/src/services';
import { ROOT } from './chart';

const SERVICE_DIRS = readdirSync(join(ROOT, 'services')).filter((d) =>
  existsSync(join(ROOT, 'services', d, 'src', 'main.ts')),
);
const compose = parse(readFileSync(join(ROOT, 'deploy', 'compose.yaml'), 'utf8'), { merge: true });
const collector = parse(readFileSync(join(ROOT, 'deploy', 'otel-collector.yaml'), 'utf8'));

/** Compose's variable interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (_m, name: string, op: string | undefined, arg: string) => {
      const v = env[name];
      const set = op?.startsWith(':') ? v !== undefined && v !== '' : v !== undefined;
      if (set) return v!;
      if (op?.endsWith('?')) throw new Error(`required variable ${name}: ${arg}`);
      return op ? arg : '';
    },
  );
}

async function configSchema(service: string) {
  return (await import(join(ROOT, 'services', service, 'src', 'config.ts'))).configSchema;
}

/** Whether a service's config reads a variable (its zod object shape, under any transform). */
async function readsVariable(service: string, name: string): Promise<boolean> {
  let schema = await configSchema(service);
  while (schema && !schema.shape) schema = schema._def?.schema ?? schema._def?.in;
  return name in schema.shape;
}

describe('deploy/compose.yaml', () => {
  const hostEnv = {
    SECRETS_KEYRING: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    JWT_SECRET: 'compose-test-jwt-secret-0123456789abcdef',
    SYSTEM_API_KEY: 'sk_live_0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  };
  /** A compose service's environment as compose would pass it, with the host's variables `env`. */
  const environmentOf = (service: string, env: Record<string, string> = hostEnv): Record<string, string> =>
    Object.fromEntries(
      Object.entries(compose.services[service].environment as Record<string, string>).map(([k, v]) => [
        k,
        interpolate(String(v), env),
      ]),
    );

  it("runs documents from the Dockerfile's documents target and every other service from its services target", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'grpc-certs',
        'mongo',
        'mongo-init',
        'nats',
        'otel-collector',
        'recurring-processor',
        'redis',
        ...SERVICE_DIRS,
      ].sort(),
    );
    const stages = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM \S+ AS (\S+)$/gm)].map(
      (m) => m[1],
    );
    for (const service of [...SERVICE_DIRS, 'grpc-certs', 'recurring-processor']) {
      const s = compose.services[service];
      const target = service === 'documents' ? 'documents' : 'services';
      expect(stages, service).toContain(target);
      expect(s.image, service).toBe(
        service === 'documents'
          ? '${PAYMESH_DOCUMENTS_IMAGE:-paymesh-documents:local}'
          : '${PAYMESH_IMAGE:-paymesh:local}',
      );
      expect(s.build, service).toEqual({ context: '..', dockerfile: 'Dockerfile', target });
    }
    for (const service of SERVICE_DIRS) {
      const s = compose.services[service];
      expect(s.environment.SERVICE).toBe(service);
      expect(s.depends_on).toMatchObject({
        nats: { condition: 'service_healthy' },
        'mongo-init': { condition: 'service_completed_successfully' },
        'grpc-certs': { condition: 'service_completed_successfully' },
      });
      expect(s.volumes).toEqual(['grpc-certs:/certs:ro']);
      expect(s.read_only).toBe(true);
    }
    expect(compose.services.nats.command).toContain('--jetstream');
    expect(compose.services.mongo.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
    expect(compose.services['mongo-init'].command.join(' ')).toContain(
      "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })",
    );
    expect(existsSync(join(ROOT, 'deploy', compose.services['otel-collector'].volumes[0].split(':')[0]))).toBe(true);
  });

  it("issues the mesh certificates with the script pnpm start uses, readable by the services' user", () => {
    const certs = compose.services['grpc-certs'];
    expect(certs.command.slice(0, 5)).toEqual(['node', 'deploy/local/certs.mjs', '/certs', '--owner', '10001:10001']);
    expect(certs.volumes).toEqual(['grpc-certs:/certs']);
    expect(existsSync(join(ROOT, certs.command[1]))).toBe(true);
    for (const backend of Object.keys(BACKEND_SERVICES)) {
      expect(compose.services[backend].healthcheck.test.join(' ')).toContain('GRPC_HEALTH_PORT');
      expect(compose.services[backend].environment.GRPC_HEALTH_PORT).toBe('8090');
    }
  });

  it('refuses to start without SECRETS_KEYRING', () => {
    const env = compose.services.checkout.environment;
    expect(() => interpolate(env.SECRETS_KEYRING, {})).toThrow(/SECRETS_KEYRING/);
  });

  it('starts every service that reads REDIS_URL once Redis answers its health check, and only those wait for it', async () => {
    expect(compose.services.redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    const users: string[] = [];
    for (const service of SERVICE_DIRS) {
      const reads = await readsVariable(service, 'REDIS_URL');
      if (reads) users.push(service);
      expect(compose.services[service].depends_on.redis, service).toEqual(
        reads ? { condition: 'service_healthy' } : undefined,
      );
      if (reads) expect(environmentOf(service).REDIS_URL).toBe('redis://redis:6379');
    }
    expect(users.sort()).toEqual(['gateway-admin', 'gateway-public']);
  });

  it("runs the recurring processor on a timer against gateway-admin with its system key, as the chart's CronJob does", () => {
    const rp = compose.services['recurring-processor'];
    expect(rp.command).toEqual(['node', 'deploy/local/recurring-timer.mjs']);
    // The image holds the script (its WORKDIR /app is the repository root's runtime tree).
    expect(runtimePlan(ROOT).map((e) => e.path)).toContain(rp.command[1]);
    expect(rp.depends_on).toEqual({ 'gateway-admin': { condition: 'service_healthy' } });
    expect(rp.read_only).toBe(true);
    expect(rp.restart).toBe('on-failure');
    const env = environmentOf('recurring-processor');
    const admin = environmentOf('gateway-admin');
    expect(env.PAYMESH_ADMIN_URL).toBe(`http://gateway-admin:${admin.PORT}/api/v1`);
    expect(env.SYSTEM_API_KEY).toBe(admin.SYSTEM_API_KEY);
    expect(recurringIntervalMs(env)).toBe(15 * 60_000);
    expect(
      recurringIntervalMs(environmentOf('recurring-processor', { ...hostEnv, RECURRING_PROCESS_INTERVAL_MS: '0' })),
    ).toBe(0);
    // Without the key the processor could never authenticate: compose refuses to start.
    const { SYSTEM_API_KEY: _key, ...withoutKey } = hostEnv;
    expect(() => environmentOf('recurring-processor', withoutKey)).toThrow(/SYSTEM_API_KEY/);
    expect(() => environmentOf('gateway-admin', withoutKey)).toThrow(/SYSTEM_API_KEY/);
  });

  it("runs the recurring processor's command: it posts to the process route with the key until stopped, or says it is off", async () => {
    const rp = compose.services['recurring-processor'];
    const calls: { method: string; url: string; auth: string | undefined }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      calls.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"processed":1,"completed":1,"failed":0,"skipped":0,"cancellationsFinalized":0}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const run = (env: Record<string, string>) => ({ ...env, PATH: process.env.PATH ?? '' });
    try {
      // gateway-admin's name only resolves inside compose: the stand-in listens on loopback.
      const env = {
        ...environmentOf('recurring-processor', { ...hostEnv, RECURRING_PROCESS_INTERVAL_MS: '20' }),
        PAYMESH_ADMIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
      };
      const child = spawn(process.execPath, rp.command.slice(1), {
        cwd: ROOT,
        env: run(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await eventually(() => calls.length >= 2, 10_000, 20);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(calls[0]).toEqual({
        method: 'POST',
        url: '/api/v1/system/recurring/process',
        auth: `Bearer ${hostEnv.SYSTEM_API_KEY}`,
      });
      expect(out).toContain('recurring processor: POST');
      expect(out).toContain('"processed":1');

      const off = spawnSync(process.execPath, rp.command.slice(1), {
        cwd: ROOT,
        env: run({ ...env, RECURRING_PROCESS_INTERVAL_MS: '0' }),
        encoding: 'utf8',
      });
      expect([off.status, off.stdout.trim()]).toEqual([
        0,
        'recurring processor: off (RECURRING_PROCESS_INTERVAL_MS=0)',
      ]);
      const keyless = spawnSync(process.execPath, rp.command.slice(1), {
        cwd: ROOT,
        env: run({ PAYMESH_ADMIN_URL: env.PAYMESH_ADMIN_URL }),
        encoding: 'utf8',
      });
      expect(keyless.status).toBe(2);
      expect(keyless.stderr).toContain('SYSTEM_API_KEY');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('gives each service an environment its config accepts in production, listening where the others call it', async () => {
    for (const service of SERVICE_DIRS) {
      const env = environmentOf(service);
      const parsed = (await configSchema(service)).safeParse(env);
      if (!parsed.success) throw new Error(`${service}: ${JSON.stringify(parsed.error.issues)}`);
      const config = parsed.data;
      expect(config.NODE_ENV).toBe('production');
      expect(config.STORE_URL).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      // One NATS server can hold one copy of a stream.
      expect(config.BUS_STREAM_REPLICAS).toBe(1);
      // Mutual TLS with the certificate grpc-certs issues for this service.
      expect(config.GRPC_INSECURE).toBe(false);
      expect([config.GRPC_TLS_CA_FILE, config.GRPC_TLS_CERT_FILE, config.GRPC_TLS_KEY_FILE]).toEqual([
        '/certs/ca.crt',
        `/certs/${service}.crt`,
        `/certs/${service}.key`,
      ]);
      expect(compose.services['grpc-certs'].command).toContain(service);
      expect(env.SECRETS_KEYRING).toBe(hostEnv.SECRETS_KEYRING);
      if (service in BACKEND_SERVICES) {
        expect(config.GRPC_HOST).toBe('0.0.0.0');
        expect(config.GRPC_PORT).toBe(BACKEND_SERVICES[service as BackendService].grpcPort);
      } else {
        expect(config.HOST).toBe('0.0.0.0');
        const published = compose.services[service].ports[0];
        expect(published).toBe(`127.0.0.1:${config.PORT}:${config.PORT}`);
      }
      for (const backend of Object.keys(BACKEND_SERVICES) as BackendService[]) {
        expect(env[grpcAddrEnvName(backend)]).toBe(`${backend}:${BACKEND_SERVICES[backend].grpcPort}`);
      }
    }
  });

  it('sends spans to the collector, whose pipeline receives OTLP over HTTP and gRPC and exports them', () => {
    const endpoint = new URL(compose.services.checkout.environment.OTEL_EXPORTER_OTLP_ENDPOINT);
    expect(endpoint.hostname).toBe('otel-collector');
    expect(collector.receivers.otlp.protocols.http.endpoint).toBe(`0.0.0.0:${endpoint.port}`);
    expect(collector.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
    const traces = collector.service.pipelines.traces;
    expect(traces.receivers).toEqual(['otlp']);
    expect(traces.processors).toContain('batch');
    expect(traces.exporters).toContain('debug');
    expect(collector.exporters.otlp.endpoint).toBeTruthy();
    for (const [section, names] of [
      ['receivers', traces.receivers],
      ['processors', traces.processors],
      ['exporters', traces.exporters],
    ] as const) {
      for (const name of names) expect(collector[section][name], `${section}.${name}`).toBeDefined();
    }
    for (const ext of collector.service.extensions) expect(collector.extensions[ext]).toBeDefined();
  });
});
