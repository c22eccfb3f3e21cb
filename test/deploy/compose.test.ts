import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BACKEND_SERVICES, grpcAddrEnvName, type BackendService } from '../../libs/runtime/src/services';
import { ROOT } from './chart';

const SERVICE_DIRS = readdirSync(join(ROOT, 'services')).filter((d) => existsSync(join(ROOT, 'services', d, 'src', 'main.ts')));
const compose = parse(readFileSync(join(ROOT, 'deploy', 'compose.yaml'), 'utf8'), { merge: true });
const collector = parse(readFileSync(join(ROOT, 'deploy', 'otel-collector.yaml'), 'utf8'));

/** Compose's variable interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error}. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_m, name: string, op: string | undefined, arg: string) => {
    const v = env[name];
    const set = op?.startsWith(':') ? v !== undefined && v !== '' : v !== undefined;
    if (set) return v!;
    if (op?.endsWith('?')) throw new Error(`required variable ${name}: ${arg}`);
    return op ? arg : '';
  });
}

async function configSchema(service: string) {
  return (await import(join(ROOT, 'services', service, 'src', 'config.ts'))).configSchema;
}

describe('deploy/compose.yaml', () => {
  const hostEnv = { SECRETS_KEYRING: 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=', JWT_SECRET: 'compose-test-jwt-secret-0123456789abcdef' };

  it('runs documents from the Dockerfile\'s documents target and every other service from its services target', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['grpc-certs', 'mongo', 'mongo-init', 'nats', 'otel-collector', 'redis', ...SERVICE_DIRS].sort());
    const stages = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    for (const service of [...SERVICE_DIRS, 'grpc-certs']) {
      const s = compose.services[service];
      const target = service === 'documents' ? 'documents' : 'services';
      expect(stages, service).toContain(target);
      expect(s.image, service).toBe(service === 'documents' ? '${PAYMESH_DOCUMENTS_IMAGE:-paymesh-documents:local}' : '${PAYMESH_IMAGE:-paymesh:local}');
      expect(s.build, service).toEqual({ context: '..', dockerfile: 'Dockerfile', target });
    }
    for (const service of SERVICE_DIRS) {
      const s = compose.services[service];
      expect(s.environment.SERVICE).toBe(service);
      expect(s.depends_on).toEqual({
        nats: { condition: 'service_healthy' },
        'mongo-init': { condition: 'service_completed_successfully' },
        'grpc-certs': { condition: 'service_completed_successfully' },
      });
      expect(s.volumes).toEqual(['grpc-certs:/certs:ro']);
      expect(s.read_only).toBe(true);
    }
    expect(compose.services.nats.command).toContain('--jetstream');
    expect(compose.services.mongo.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
    expect(compose.services['mongo-init'].command.join(' ')).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(existsSync(join(ROOT, 'deploy', compose.services['otel-collector'].volumes[0].split(':')[0]))).toBe(true);
  });

  it('issues the mesh certificates with the script pnpm start uses, readable by the services\' user', () => {
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

  it('gives each service an environment its config accepts in production, listening where the others call it', async () => {
    for (const service of SERVICE_DIRS) {
      const raw: Record<string, string> = compose.services[service].environment;
      const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), hostEnv)]));
      const parsed = (await configSchema(service)).safeParse(env);
      if (!parsed.success) throw new Error(`${service}: ${JSON.stringify(parsed.error.issues)}`);
      const config = parsed.data;
      expect(config.NODE_ENV).toBe('production');
      expect(config.STORE_URL).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      // One NATS server can hold one copy of a stream.
      expect(config.BUS_STREAM_REPLICAS).toBe(1);
      // Mutual TLS with the certificate grpc-certs issues for this service.
      expect(config.GRPC_INSECURE).toBe(false);
      expect([config.GRPC_TLS_CA_FILE, config.GRPC_TLS_CERT_FILE, config.GRPC_TLS_KEY_FILE]).toEqual(['/certs/ca.crt', `/certs/${service}.crt`, `/certs/${service}.key`]);
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
    for (const [section, names] of [['receivers', traces.receivers], ['processors', traces.processors], ['exporters', traces.exporters]] as const) {
      for (const name of names) expect(collector[section][name], `${section}.${name}`).toBeDefined();
    }
    for (const ext of collector.service.extensions) expect(collector.extensions[ext]).toBeDefined();
  });
});
