import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { CronJob } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { resolveKeyring } from '../../libs/core/src/config';
import { SecretBox } from '../../libs/core/src/secrets';
import { parseApiKey } from '../../services/gateway-admin/src/domain/api-key';
import { BACKEND_SERVICES, grpcAddrEnvName, type BackendService } from '../../libs/runtime/src/services';
import { CHART_DIR, ROOT, chartValues, renderChart, rendererUnavailableReason, type Manifest } from './chart';
import {
  SERVICE_DIRS,
  chartDownstreamTable,
  declaredDownstream,
  declaredEdges,
  edgeDiff,
  policyEdges,
} from './topology';

/** What the test uses of a service's zod config schema (zod itself is not a root dependency). */
type Shape = Record<string, { isOptional(): boolean; parse(value: unknown): any }>;
interface ConfigSchema {
  safeParse(
    env: Record<string, string>,
  ): { success: true; data: Record<string, any> } | { success: false; error: { issues: unknown[] } };
}

async function configSchema(service: string): Promise<ConfigSchema> {
  try {
    const mod = await import(join(ROOT, 'services', service, 'src', 'config.ts'));
    return mod.configSchema;
  } catch (err) {
    // config.ts also parses this process's env when imported: a new variable without a default fails here.
    throw new Error(
      `services/${service}/src/config.ts does not load with the test env (a required variable the chart must provide?): ${String(err)}`,
    );
  }
}

/** The object shape of a config schema, under any `.transform()`/`.pipe()` wrapping it. */
function shapeOf(schema: ConfigSchema): Shape {
  let s: any = schema;
  while (s && !s.shape) s = s._def?.schema ?? s._def?.in;
  if (!s) throw new Error('config schema has no object shape');
  return s.shape;
}

/** Required keys of a config schema: those that neither have a default nor are optional. */
function requiredKeys(schema: ConfigSchema): string[] {
  return Object.entries(shapeOf(schema))
    .filter(([, field]) => !field.isOptional())
    .map(([key]) => key);
}

/** The port a service listens on by default (its own config), and whether it speaks HTTP or gRPC. */
function listenPort(schema: ConfigSchema): { protocol: 'http' | 'grpc'; port: number } {
  const shape = shapeOf(schema);
  if (shape.PORT) return { protocol: 'http', port: shape.PORT.parse(undefined) };
  if (shape.GRPC_PORT) return { protocol: 'grpc', port: shape.GRPC_PORT.parse(undefined) };
  throw new Error('service config has neither PORT nor GRPC_PORT');
}

const templateText = (file: string) => readFileSync(join(CHART_DIR, 'templates', file), 'utf8');
const literalKeys = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]!);

/** Values as Helm merges them: maps merge key by key, anything else is replaced. */
function mergeValues(base: unknown, over: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeValues(base[k], v);
  return out;
}

describe('helm chart values', () => {
  const values = chartValues();

  it('match values.schema.json (which Helm checks at install, upgrade, lint and template), as do the example and CI values', () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const check = (v: unknown) =>
      validate(v) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    expect(check(values)).toEqual([]);
    for (const file of [
      join(CHART_DIR, 'ci', 'production-values.yaml'),
      join(ROOT, 'helm', 'examples', 'ha-values.yaml'),
    ])
      expect(check(mergeValues(values, parse(readFileSync(file, 'utf8')))), file).toEqual([]);
    const wrong: [string, unknown][] = [
      ['a typo in a service name', { services: { 'gateway-admn': { protocol: 'http', port: 8080 } } }],
      ['an unknown service setting', { services: { tax: { replica: 3 } } }],
      ['negative replicas', { services: { tax: { replicas: -1 } } }],
      ['more stream copies than JetStream allows', { config: { busStreamReplicas: 7 } }],
      ['a stream cap below 1 MiB', { config: { busStreamMaxBytes: 1024 } }],
      ['seconds as a string', { shutdown: { timeoutSeconds: '20' } }],
      ['autoscaling switched on with a string', { autoscaling: { enabled: 'yes' } }],
      [
        'a spread without its key',
        { topologySpreadConstraints: [{ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] },
      ],
    ];
    for (const [what, over] of wrong) expect(check(mergeValues(values, over)), what).not.toEqual([]);
  });

  it('has one services entry per service directory, with the port and protocol the service listens on', async () => {
    expect(Object.keys(values.services).sort()).toEqual([...SERVICE_DIRS].sort());
    for (const service of SERVICE_DIRS) {
      const entry = values.services[service];
      expect(listenPort(await configSchema(service)), service).toEqual({ protocol: entry.protocol, port: entry.port });
      if (service in BACKEND_SERVICES)
        expect(entry.port, service).toBe(BACKEND_SERVICES[service as BackendService].grpcPort);
    }
  });

  it('provides every required variable of every service config through the ConfigMap, the Secret or the pod env', async () => {
    const grpcAddrs = Object.entries(values.services)
      .filter(([, s]: [string, any]) => s.protocol === 'grpc')
      .map(([name]) => grpcAddrEnvName(name as BackendService));
    const shared = [
      ...literalKeys(templateText('configmap.yaml'), /^ {2}([A-Z][A-Z0-9_]*):/gm),
      ...grpcAddrs,
      ...Object.keys(values.config.extraEnv ?? {}),
      ...literalKeys(templateText('secret.yaml'), /^ {2}([A-Z][A-Z0-9_]*):/gm),
      ...literalKeys(templateText('deployment.yaml'), /- name: ([A-Z][A-Z0-9_]*)$/gm),
    ];
    expect(shared).toEqual(
      expect.arrayContaining([
        'NODE_ENV',
        'NATS_URL',
        'STORE_URL',
        'STORE_NAMESPACE',
        'BUS_NAMESPACE',
        'SECRETS_KEYRING',
      ]),
    );
    for (const service of SERVICE_DIRS) {
      const provided = new Set([...shared, ...Object.keys(values.services[service].env ?? {})]);
      const missing = requiredKeys(await configSchema(service)).filter((k) => !provided.has(k));
      expect(missing, `${service} lacks required variables`).toEqual([]);
    }
  });

  it('gives every backend a <SERVICE>_GRPC_ADDR that the gateways read', async () => {
    const gatewayKeys = Object.keys(shapeOf(await configSchema('gateway-admin'))).filter((k) =>
      k.endsWith('_GRPC_ADDR'),
    );
    const backends = Object.keys(BACKEND_SERVICES).map((s) => grpcAddrEnvName(s as BackendService));
    expect(gatewayKeys.sort()).toEqual(backends.sort());
  });
});

/** Every .ts file under a directory, tests excluded. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe("gRPC call graph: each service's declared downstream backends, and the chart", () => {
  it('gives each service config the addresses of exactly the backends its downstream list declares', async () => {
    for (const service of SERVICE_DIRS) {
      const declared = await declaredDownstream(service);
      const addrKeys = Object.keys(shapeOf(await configSchema(service))).filter((k) => k.endsWith('_GRPC_ADDR'));
      expect(addrKeys.sort(), service).toEqual(declared.map((b) => grpcAddrEnvName(b as BackendService)).sort());
    }
    // The gateways route to (and health-check) every backend, which is what the chart gives them.
    for (const gateway of ['gateway-admin', 'gateway-public'])
      expect((await declaredDownstream(gateway)).sort()).toEqual(Object.keys(BACKEND_SERVICES).sort());
  });

  it('lets no service code read a backend address except through its declared config (downstreamAddr)', () => {
    for (const service of SERVICE_DIRS) {
      for (const file of sourceFiles(join(ROOT, 'services', service, 'src'))) {
        const text = readFileSync(file, 'utf8');
        expect(text.match(/[A-Z_]+_GRPC_ADDR/g) ?? [], file).toEqual([]);
      }
    }
  });

  it("keeps the chart's downstream table (templates/_downstream.tpl) equal to the services' declarations", async () => {
    const table = chartDownstreamTable();
    const backends = SERVICE_DIRS.filter((s) => s in BACKEND_SERVICES).sort();
    expect(Object.keys(table).sort()).toEqual(backends);
    for (const backend of backends)
      expect([...(table[backend] ?? [])].sort(), backend).toEqual((await declaredDownstream(backend)).sort());
  });
});

/** kubernetes-models class per apiVersion/kind; validate() throws on a schema violation. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/CronJob': CronJob,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

/** The chart's production-shaped CI values: placeholder secrets, OTLP export, both ingresses on. */
const PRODUCTION = parse(readFileSync(join(CHART_DIR, 'ci', 'production-values.yaml'), 'utf8'));

const unavailable = rendererUnavailableReason();
if (unavailable) {
  console.log(`helm chart: rendered-manifest checks not run (${unavailable}; deploy/setup.sh installs it)`);
} else {
  describe('helm chart rendered (Go text/template + sprig, as helm template does)', () => {
    let manifests: Manifest[];
    let notes: string;
    const values = chartValues();
    const of = (kind: string) => manifests.filter((m) => m.kind === kind);
    const named = (kind: string, name: string) => {
      const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
      if (!found) throw new Error(`no ${kind} ${name}`);
      return found;
    };

    beforeAll(() => {
      ({ manifests, notes } = renderChart([PRODUCTION], { release: 'paymesh', namespace: 'payments' }));
    }, 180_000);

    it('renders only objects that kubernetes-models validates', () => {
      expect(manifests.length).toBeGreaterThan(0);
      for (const m of manifests) {
        const Model = MODELS[`${m.apiVersion}/${m.kind}`];
        expect(Model, `unexpected ${m.apiVersion} ${m.kind}`).toBeDefined();
        expect(() => new Model!(m).validate(), `${m.kind} ${m.metadata.name}`).not.toThrow();
        expect(m.metadata.namespace, `${m.kind} ${m.metadata.name}`).toBe('payments');
      }
    });

    it('renders a Deployment, Service and PodDisruptionBudget per service, one ConfigMap, Secret and ServiceAccount', () => {
      const expected = SERVICE_DIRS.map((s) => `paymesh-${s}`).sort();
      for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'NetworkPolicy']) {
        expect(
          of(kind)
            .map((m) => m.metadata.name)
            .sort(),
          kind,
        ).toEqual(expected);
      }
      expect(of('ConfigMap').map((m) => m.metadata.name)).toEqual(['paymesh-env']);
      expect(of('Secret').map((m) => m.metadata.name)).toEqual(['paymesh']);
      expect(of('ServiceAccount').map((m) => m.metadata.name)).toEqual(['paymesh']);
      for (const svc of of('Service')) expect(svc.metadata.name).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
    });

    it('gives each pod an environment its service config accepts in production', async () => {
      const configMap = named('ConfigMap', 'paymesh-env').data as Record<string, string>;
      const secret = named('Secret', 'paymesh').stringData as Record<string, string>;
      for (const service of SERVICE_DIRS) {
        const deploy = named('Deployment', `paymesh-${service}`);
        const container = deploy.spec.template.spec.containers[0];
        expect(container.envFrom).toEqual([{ configMapRef: { name: 'paymesh-env' } }]);
        const env: Record<string, string> = { ...configMap };
        for (const e of container.env) {
          if (e.valueFrom) {
            expect(e.valueFrom.secretKeyRef.name, `${service} ${e.name}`).toBe('paymesh');
            const value = secret[e.valueFrom.secretKeyRef.key];
            if (value === undefined && !e.valueFrom.secretKeyRef.optional)
              throw new Error(`${service}: ${e.name} refers to a missing Secret key`);
            if (value !== undefined) env[e.name] = value;
          } else {
            env[e.name] = e.value;
          }
        }
        const parsed = (await configSchema(service)).safeParse(env);
        if (!parsed.success) throw new Error(`${service}: ${JSON.stringify(parsed.error.issues)}`);
        const config = parsed.data;
        expect(config.NODE_ENV).toBe('production');
        expect(config.STORE_URL).toBe(PRODUCTION.secrets.storeUrl);
        // Three copies of every stream on the JetStream cluster a production install runs.
        expect(config.BUS_STREAM_REPLICAS).toBe(3);
        expect(config.BUS_STREAM_MAX_BYTES).toBe(values.config.busStreamMaxBytes);
        expect(() =>
          resolveKeyring({ NODE_ENV: config.NODE_ENV, SECRETS_KEYRING: config.SECRETS_KEYRING ?? env.SECRETS_KEYRING }),
        ).not.toThrow();
        const entry = values.services[service];
        const [host, port] =
          entry.protocol === 'http' ? [config.HOST, config.PORT] : [config.GRPC_HOST, config.GRPC_PORT];
        expect(host, `${service} must not listen on loopback only`).toBe('0.0.0.0');
        expect(port).toBe(entry.port);
        expect(container.ports[0]).toEqual({ name: entry.protocol, containerPort: entry.port, protocol: 'TCP' });
        if (entry.protocol === 'grpc') {
          expect(container.ports).toContainEqual({
            name: 'grpc-health',
            containerPort: values.grpcHealthPort,
            protocol: 'TCP',
          });
          expect(config.GRPC_HEALTH_PORT).toBe(values.grpcHealthPort);
        }
        // Backend gRPC on mutual TLS: the three files come from the service's own mounted Secret.
        expect(config.GRPC_INSECURE, service).toBe(false);
        const mount = container.volumeMounts.find((m: any) => m.name === 'grpc-tls');
        expect(mount, service).toEqual({ name: 'grpc-tls', mountPath: values.grpcTls.mountPath, readOnly: true });
        expect([config.GRPC_TLS_CA_FILE, config.GRPC_TLS_CERT_FILE, config.GRPC_TLS_KEY_FILE]).toEqual(
          ['ca.crt', 'tls.crt', 'tls.key'].map((f) => `${values.grpcTls.mountPath}/${f}`),
        );
        const volume = deploy.spec.template.spec.volumes.find((v: any) => v.name === 'grpc-tls');
        expect(volume.secret.secretName).toBe(`paymesh-grpc-tls-${service}`);
        expect(volume.secret.items.map((i: any) => i.key).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
        expect(container.command).toEqual(['node', '--enable-source-maps', `services/${service}/dist/main.js`]);
        expect(env.OTEL_SERVICE_NAME).toBe(service);
        expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(PRODUCTION.config.otelExporterOtlpEndpoint);
        expect('SYSTEM_API_KEY' in env, service).toBe(service === 'gateway-admin');
        if (env.SYSTEM_API_KEY)
          expect(parseApiKey(env.SYSTEM_API_KEY)).toMatchObject({ mode: 'live', keyId: '0123456789abcdef' });
        expect(new SecretBox(env.SECRETS_KEYRING!).seal('x').kid).toBe('k1');
      }
    });

    it("names the dashboard's WebAuthn relying party and origin after its address", async () => {
      const cm = renderChart([
        PRODUCTION,
        { config: { dashboard: { url: 'https://admin.pay.example.com:8443/app/' } } },
      ]).manifests.find((m) => m.kind === 'ConfigMap')!;
      expect(cm.data).toMatchObject({
        WEBAUTHN_RP_ID: 'admin.pay.example.com',
        WEBAUTHN_ORIGINS: 'https://admin.pay.example.com:8443',
      });
      const parsed = (await configSchema('gateway-admin')).safeParse({
        ...(cm.data as Record<string, string>),
        STORE_URL: PRODUCTION.secrets.storeUrl,
        SECRETS_KEYRING: PRODUCTION.secrets.secretsKeyring,
        JWT_SECRET: PRODUCTION.secrets.jwtSecret,
      });
      expect(parsed.success).toBe(true);
      if (parsed.success) expect(parsed.data.WEBAUTHN_ORIGINS).toEqual(['https://admin.pay.example.com:8443']);
    });

    it('sets the hosted checkout URL and origin, without which checkout and gateway-public refuse production', async () => {
      const cm = named('ConfigMap', 'paymesh-env').data as Record<string, string>;
      expect(cm.CHECKOUT_FRONTEND_URL).toBe(PRODUCTION.config.checkoutFrontendUrl);
      expect(cm.MAIN_FRONTEND_ORIGIN).toBe(PRODUCTION.config.checkoutFrontendUrl);
      const override = renderChart([
        PRODUCTION,
        { config: { mainFrontendOrigin: 'https://pay.shop.example' } },
      ]).manifests.find((m) => m.kind === 'ConfigMap')!;
      expect(override.data).toMatchObject({
        CHECKOUT_FRONTEND_URL: PRODUCTION.config.checkoutFrontendUrl,
        MAIN_FRONTEND_ORIGIN: 'https://pay.shop.example',
      });
      // Without a checkout host of its own, payment links open the page gateway-public serves at publicRootUrl.
      const ownPage = renderChart([
        PRODUCTION,
        { config: { checkoutFrontendUrl: '', publicRootUrl: 'https://api.shop.example' } },
      ]).manifests.find((m) => m.kind === 'ConfigMap')!;
      expect(ownPage.data).toMatchObject({
        CHECKOUT_FRONTEND_URL: 'https://api.shop.example',
        MAIN_FRONTEND_ORIGIN: 'https://api.shop.example',
      });

      const { CHECKOUT_FRONTEND_URL: _url, MAIN_FRONTEND_ORIGIN: _origin, ...without } = cm;
      const env = {
        ...without,
        STORE_URL: PRODUCTION.secrets.storeUrl,
        SECRETS_KEYRING: PRODUCTION.secrets.secretsKeyring,
      };
      for (const [service, key] of [
        ['checkout', 'CHECKOUT_FRONTEND_URL'],
        ['gateway-public', 'MAIN_FRONTEND_ORIGIN'],
      ] as const) {
        const schema = await configSchema(service);
        const refused = schema.safeParse(env);
        expect(refused.success, `${service} without ${key}`).toBe(false);
        if (!refused.success) expect(JSON.stringify(refused.error.issues)).toContain(key);
        expect(schema.safeParse({ ...env, [key]: cm[key]! }).success, `${service} with ${key}`).toBe(true);
      }
    });

    it('points every <SERVICE>_GRPC_ADDR at the in-cluster DNS name and port of that backend Service', () => {
      const configMap = named('ConfigMap', 'paymesh-env').data as Record<string, string>;
      for (const backend of Object.keys(BACKEND_SERVICES) as BackendService[]) {
        const svc = named('Service', `paymesh-${backend}`);
        const port = svc.spec.ports[0].port;
        expect(configMap[grpcAddrEnvName(backend)]).toBe(`paymesh-${backend}.payments.svc.cluster.local:${port}`);
        expect(port).toBe(BACKEND_SERVICES[backend].grpcPort);
      }
    });

    it("selects each Deployment's pods from its Service and PodDisruptionBudget, on the named container port", () => {
      for (const service of SERVICE_DIRS) {
        const deploy = named('Deployment', `paymesh-${service}`);
        const podLabels = deploy.spec.template.metadata.labels;
        expect(deploy.spec.selector.matchLabels).toEqual(
          expect.objectContaining({ 'app.kubernetes.io/component': service }),
        );
        for (const [k, v] of Object.entries(deploy.spec.selector.matchLabels)) expect(podLabels[k]).toBe(v);
        const svc = named('Service', `paymesh-${service}`);
        expect(svc.spec.selector).toEqual(deploy.spec.selector.matchLabels);
        const protocol = values.services[service].protocol;
        expect(svc.spec.ports).toEqual([
          {
            name: protocol,
            port: values.services[service].port,
            targetPort: protocol,
            protocol: 'TCP',
            appProtocol: protocol,
          },
        ]);
        expect(named('PodDisruptionBudget', `paymesh-${service}`).spec).toEqual({
          maxUnavailable: 1,
          selector: { matchLabels: deploy.spec.selector.matchLabels },
        });
        // Other services' selectors must not match these pods.
        for (const other of SERVICE_DIRS.filter((o) => o !== service)) {
          const sel = named('Service', `paymesh-${other}`).spec.selector;
          expect(
            Object.entries(sel).every(([k, v]) => podLabels[k] === v),
            `${other} selects ${service}`,
          ).toBe(false);
        }
      }
    });

    it('probes the gateways over HTTP (/health live, /internal/health ready) and the backends over gRPC health', () => {
      for (const service of SERVICE_DIRS) {
        const c = named('Deployment', `paymesh-${service}`).spec.template.spec.containers[0];
        const { protocol, port } = values.services[service];
        if (protocol === 'http') {
          expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
          expect(c.readinessProbe.httpGet).toEqual({ path: '/internal/health', port: 'http' });
          expect(c.startupProbe.httpGet).toEqual({ path: '/health', port: 'http' });
        } else {
          // The kubelet's grpc probe cannot present a client certificate: it asks the health-only port.
          expect(c.readinessProbe.grpc).toEqual({ port: values.grpcHealthPort });
          expect(port).not.toBe(values.grpcHealthPort);
          expect(c.livenessProbe.tcpSocket).toEqual({ port: 'grpc' });
        }
      }
    });

    it('stops a pod gracefully: preStop waits while the endpoint goes, and the grace period covers the drain and the shutdown timeout the services read', async () => {
      const cm = named('ConfigMap', 'paymesh-env').data as Record<string, string>;
      const { preStopSeconds, httpDrainSeconds, timeoutSeconds } = values.shutdown;
      expect(cm.SHUTDOWN_TIMEOUT_MS).toBe(String(timeoutSeconds * 1000));
      expect(cm.HTTP_DRAIN_MS).toBe(String(httpDrainSeconds * 1000));
      for (const service of SERVICE_DIRS) {
        const pod = named('Deployment', `paymesh-${service}`).spec.template.spec;
        expect(pod.containers[0].lifecycle.preStop.exec.command, service).toEqual(['sleep', String(preStopSeconds)]);
        // A process that has not stopped after its drain and timeout exits on its own 5 s later (libs/runtime stopDeadline).
        expect(pod.terminationGracePeriodSeconds, service).toBeGreaterThanOrEqual(
          preStopSeconds + httpDrainSeconds + timeoutSeconds + 5,
        );
        // The services take the durations from the ConfigMap (a gateway reads both).
        const schema = shapeOf(await configSchema(service));
        expect(schema.SHUTDOWN_TIMEOUT_MS?.parse(cm.SHUTDOWN_TIMEOUT_MS), service).toBe(timeoutSeconds * 1000);
        if (values.services[service].protocol === 'http')
          expect(schema.HTTP_DRAIN_MS?.parse(cm.HTTP_DRAIN_MS), service).toBe(httpDrainSeconds * 1000);
      }
      expect(() =>
        renderChart([
          { secrets: PRODUCTION.secrets, terminationGracePeriodSeconds: 30, shutdown: { timeoutSeconds: 25 } },
        ]),
      ).toThrow(/terminationGracePeriodSeconds \(30\) must be at least .* = 40/);
      const { manifests: ms } = renderChart([{ secrets: PRODUCTION.secrets, shutdown: { preStopSeconds: 0 } }]);
      expect(
        ms.filter((m) => m.kind === 'Deployment').every((d) => !d.spec.template.spec.containers[0].lifecycle),
      ).toBe(true);
    });

    it("spreads each service's pods over zones and nodes, selecting that service's pods", () => {
      for (const service of SERVICE_DIRS) {
        const d = named('Deployment', `paymesh-${service}`);
        const spread = d.spec.template.spec.topologySpreadConstraints;
        expect(
          spread.map((c: any) => c.topologyKey),
          service,
        ).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
        for (const c of spread) {
          expect(c.labelSelector.matchLabels).toEqual(d.spec.selector.matchLabels);
          expect(c.whenUnsatisfiable).toBe('ScheduleAnyway');
        }
      }
      const { manifests: ms } = renderChart([{ secrets: PRODUCTION.secrets, topologySpreadConstraints: [] }]);
      expect(
        ms.filter((m) => m.kind === 'Deployment').every((d) => !d.spec.template.spec.topologySpreadConstraints),
      ).toBe(true);
    });

    it('renders no HorizontalPodAutoscaler by default; with autoscaling on, one per service that leaves replicas to it', () => {
      expect(of('HorizontalPodAutoscaler')).toEqual([]);
      const { manifests: ms } = renderChart([
        {
          secrets: PRODUCTION.secrets,
          autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 12 },
          services: { documents: { autoscaling: { maxReplicas: 4 } }, recurring: { autoscaling: { enabled: false } } },
        },
      ]);
      const hpas = ms.filter((m) => m.kind === 'HorizontalPodAutoscaler');
      for (const h of hpas)
        expect(() => new HorizontalPodAutoscaler(h as any).validate(), h.metadata.name).not.toThrow();
      expect(hpas.map((h) => h.metadata.name).sort()).toEqual(
        SERVICE_DIRS.filter((s) => s !== 'recurring')
          .map((s) => `paymesh-${s}`)
          .sort(),
      );
      for (const h of hpas) {
        expect(h.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: h.metadata.name });
        expect(h.spec.minReplicas).toBe(3);
        expect(h.spec.maxReplicas).toBe(h.metadata.name === 'paymesh-documents' ? 4 : 12);
        expect(h.spec.metrics[0].resource).toEqual({
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: values.autoscaling.targetCPUUtilizationPercentage },
        });
        const d = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === h.metadata.name)!;
        expect(d.spec.replicas, h.metadata.name).toBeUndefined();
      }
      const recurring = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-recurring')!;
      expect(recurring.spec.replicas).toBe(values.services.recurring.replicas ?? 1);
    });

    it('runs every container as non-root on a read-only root filesystem with a writable /tmp', () => {
      for (const service of SERVICE_DIRS) {
        const pod = named('Deployment', `paymesh-${service}`).spec.template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
        expect(pod.automountServiceAccountToken).toBe(false);
        const c = pod.containers[0];
        expect(c.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(pod.volumes.find((v: any) => v.name === 'tmp').emptyDir).toBeDefined();
        // documents runs the Dockerfile's documents target (Chromium), every other service the services target.
        expect(c.image).toBe(service === 'documents' ? 'paymesh-documents:0.1.0' : 'paymesh:0.1.0');
      }
      const registry = renderChart([
        { secrets: PRODUCTION.secrets, image: { repository: 'reg.example/paymesh', tag: '2.0.0' } },
      ]).manifests;
      const imageOf = (name: string) =>
        registry.find((m) => m.kind === 'Deployment' && m.metadata.name === `paymesh-${name}`)!.spec.template.spec
          .containers[0].image;
      expect([imageOf('documents'), imageOf('billing')]).toEqual([
        'reg.example/paymesh-documents:2.0.0',
        'reg.example/paymesh:2.0.0',
      ]);
      const documents = named('Deployment', 'paymesh-documents').spec.template.spec;
      expect(documents.containers[0].volumeMounts).toContainEqual({ name: 'dshm', mountPath: '/dev/shm' });
      expect(documents.volumes).toContainEqual({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '256Mi' } });
      expect(documents.containers[0].env).toContainEqual({ name: 'HOME', value: '/tmp' });
    });

    it('routes each gateway host to its Service without path rewriting', () => {
      const admin = named('Ingress', 'paymesh-gateway-admin');
      expect(admin.spec.ingressClassName).toBe('nginx');
      expect(admin.spec.tls).toEqual([{ hosts: ['admin.paymesh.local'], secretName: 'admin-tls' }]);
      expect(admin.metadata.annotations).toBeUndefined();
      expect(admin.spec.rules).toEqual([
        {
          host: 'admin.paymesh.local',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'paymesh-gateway-admin', port: { name: 'http' } } },
              },
            ],
          },
        },
      ]);
      const pub = named('Ingress', 'paymesh-gateway-public');
      expect(pub.spec.rules[0].http.paths[0].backend.service.name).toBe('paymesh-gateway-public');
      expect(of('Ingress')).toHaveLength(2);
      expect(notes).toContain('https://admin.paymesh.local/api/v1');
    });

    it('renders no Ingress by default and changes the pod checksum when the config changes', () => {
      const base = renderChart([{ secrets: PRODUCTION.secrets }]).manifests;
      expect(base.filter((m) => m.kind === 'Ingress')).toEqual([]);
      const changed = renderChart([{ secrets: PRODUCTION.secrets, config: { logLevel: 'debug' } }]).manifests;
      const checksum = (ms: Manifest[]) =>
        ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-billing')!.spec.template.metadata
          .annotations['checksum/config'];
      expect(checksum(changed)).not.toBe(checksum(base));
    });

    it('uses an existing Secret instead of creating one', () => {
      const { manifests: ms } = renderChart([{ secrets: { existingSecret: 'paymesh-prod' } }]);
      expect(ms.filter((m) => m.kind === 'Secret')).toEqual([]);
      const env = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-checkout')!.spec.template.spec
        .containers[0].env;
      expect(env.find((e: any) => e.name === 'STORE_URL').valueFrom.secretKeyRef).toEqual({
        name: 'paymesh-prod',
        key: 'STORE_URL',
      });
    });

    it('refuses to render without the datastore URL and keyring, or with a malformed system key', () => {
      expect(() => renderChart([])).toThrow(/secrets\.storeUrl is required/);
      expect(() => renderChart([{ secrets: { storeUrl: 'mongodb://m/?replicaSet=rs0' } }])).toThrow(
        /secrets\.secretsKeyring is required/,
      );
      expect(() => renderChart([{ secrets: { ...PRODUCTION.secrets, systemApiKey: 'sk_live_short.secret' } }])).toThrow(
        /secrets\.systemApiKey must look like/,
      );
    });

    it('admits exactly the gRPC calls the services declare, at the callee (ingress) and at the caller (egress)', async () => {
      const declared = await declaredEdges();
      // Billing invoices through tax, checkout, notifications-ipn and documents (issue 20).
      expect(declared).toEqual(
        expect.arrayContaining([
          'billing->tax',
          'billing->checkout',
          'billing->notifications-ipn',
          'billing->documents',
        ]),
      );
      const { ingress, egress } = policyEdges(manifests);
      expect(edgeDiff(ingress, declared), 'ingress rules of the backends').toEqual({ missing: [], extra: [] });
      expect(edgeDiff(egress, declared), 'egress rules of the callers').toEqual({ missing: [], extra: [] });
      for (const policy of of('NetworkPolicy')) {
        for (const peer of [
          ...policy.spec.ingress.flatMap((r: any) => r.from ?? []),
          ...policy.spec.egress.flatMap((r: any) => r.to ?? []),
        ]) {
          if (peer.podSelector?.matchExpressions)
            expect(peer.podSelector.matchExpressions, policy.metadata.name).toContainEqual({
              key: 'app.kubernetes.io/instance',
              operator: 'In',
              values: ['paymesh'],
            });
        }
      }

      // The comparison notices an edge removed from the chart, in both directions of the policy.
      const broken = mkdtempSync(join(tmpdir(), 'paymesh-chart-broken-'));
      try {
        cpSync(CHART_DIR, broken, { recursive: true });
        const tpl = join(broken, 'templates', '_downstream.tpl');
        writeFileSync(tpl, readFileSync(tpl, 'utf8').replace(/^billing: \[(.*), documents\]$/m, 'billing: [$1]'));
        expect(chartDownstreamTable(broken).billing).not.toContain('documents');
        const without = policyEdges(renderChart([PRODUCTION], { chartDir: broken }).manifests);
        expect(edgeDiff(without.ingress, declared).missing).toEqual(['billing->documents']);
        expect(edgeDiff(without.egress, declared).missing).toEqual(['billing->documents']);
      } finally {
        rmSync(broken, { recursive: true, force: true });
      }
    });

    it("admits gateway HTTP from the ingress controller only and backend gRPC from this release's pods only", () => {
      const policies = of('NetworkPolicy');
      for (const policy of policies) {
        const service = policy.metadata.labels!['app.kubernetes.io/component']!;
        expect(policy.spec.podSelector.matchLabels).toEqual(
          named('Deployment', `paymesh-${service}`).spec.selector.matchLabels,
        );
        expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
        const ports = policy.spec.ingress.flatMap((r: any) => r.ports.map((p: any) => p.port));
        if (service === 'gateway-admin') {
          // The ingress controller, and the recurring processor CronJob's pods.
          expect(policy.spec.ingress).toEqual([
            { ports: [{ port: 'http', protocol: 'TCP' }], from: values.networkPolicy.gatewayIngressFrom },
            {
              ports: [{ port: 'http', protocol: 'TCP' }],
              from: [
                {
                  podSelector: {
                    matchLabels: {
                      'app.kubernetes.io/name': 'paymesh',
                      'app.kubernetes.io/instance': 'paymesh',
                      'app.kubernetes.io/component': 'recurring-processor',
                    },
                  },
                },
              ],
            },
          ]);
        } else if (values.services[service].protocol === 'http') {
          expect(policy.spec.ingress).toEqual([
            { ports: [{ port: 'http', protocol: 'TCP' }], from: values.networkPolicy.gatewayIngressFrom },
          ]);
        } else {
          expect(ports.sort()).toEqual(['grpc', 'grpc-health']);
          // Only the health listener is open to the kubelet without a peer restriction.
          expect(policy.spec.ingress.filter((r: any) => !r.from).flatMap((r: any) => r.ports)).toEqual([
            { port: 'grpc-health', protocol: 'TCP' },
          ]);
        }
        const egressPorts = policy.spec.egress.flatMap((r: any) => (r.ports ?? []).map((p: any) => p.port));
        expect(egressPorts).toEqual(expect.arrayContaining([53, 4222, 27017]));
        // A pod reaches the gRPC ports of the backends it calls and no other.
        const calls = policyEdges([policy]).egress.map((e) => e.split('->')[1]!);
        const grpcPorts = egressPorts.filter((p: number) =>
          Object.values(BACKEND_SERVICES).some((b) => b.grpcPort === p),
        );
        expect(grpcPorts.sort(), service).toEqual(calls.map((b) => values.services[b].port).sort());
        const internet = policy.spec.egress.find((r: any) => r.to?.some((t: any) => t.ipBlock));
        if (values.networkPolicy.internetEgress.includes(service)) {
          expect(internet.to[0].ipBlock.except).toEqual(
            expect.arrayContaining(['10.0.0.0/8', '169.254.0.0/16', '100.64.0.0/10']),
          );
        } else {
          expect(internet, service).toBeUndefined();
        }
      }
    });

    it("takes each service's gRPC certificates from a Secret named by secretPrefix, and runs plaintext only when told", () => {
      const custom = renderChart([{ secrets: PRODUCTION.secrets, grpcTls: { secretPrefix: 'mesh-certs' } }]).manifests;
      const volume = custom
        .find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-gateway-public')!
        .spec.template.spec.volumes.find((v: any) => v.name === 'grpc-tls');
      expect(volume.secret.secretName).toBe('mesh-certs-gateway-public');

      const plaintext = renderChart([
        { secrets: PRODUCTION.secrets, grpcTls: { enabled: false }, networkPolicy: { enabled: false } },
      ]).manifests;
      expect(plaintext.find((m) => m.kind === 'ConfigMap')!.data.GRPC_INSECURE).toBe('true');
      expect(plaintext.filter((m) => m.kind === 'NetworkPolicy')).toEqual([]);
      const container = plaintext.find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-checkout')!.spec
        .template.spec.containers[0];
      expect(container.env.map((e: any) => e.name)).not.toContain('GRPC_TLS_CA_FILE');
      expect(named('ConfigMap', 'paymesh-env').data.GRPC_INSECURE).toBeUndefined();
    });

    it("configures notifications-ipn's SMTP server from config.smtp, the password from the Secret", async () => {
      const smtp = {
        host: 'smtp.example.com',
        port: '465',
        secure: true,
        user: 'mailer',
        from: 'Billing <billing@example.com>',
        maxAttempts: 4,
        backoffBaseMs: 30000,
      };
      const { manifests: ms } = renderChart([{ secrets: { ...PRODUCTION.secrets, smtpPass: 'pw' }, config: { smtp } }]);
      const cm = ms.find((m) => m.kind === 'ConfigMap')!.data;
      const parsed = (await configSchema('notifications-ipn')).safeParse({ ...cm, SMTP_PASS: 'pw' });
      if (!parsed.success) throw new Error('notifications-ipn refuses the rendered SMTP settings');
      const ipn = parsed.data as Record<string, unknown>;
      expect([
        ipn.SMTP_HOST,
        ipn.SMTP_PORT,
        ipn.SMTP_SECURE,
        ipn.SMTP_USER,
        ipn.MAIL_FROM,
        ipn.EMAIL_MAX_ATTEMPTS,
        ipn.EMAIL_BACKOFF_BASE_MS,
      ]).toEqual(['smtp.example.com', 465, true, 'mailer', 'Billing <billing@example.com>', 4, 30000]);
      expect(ms.find((m) => m.kind === 'Secret')!.stringData.SMTP_PASS).toBe('pw');
      const env = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'paymesh-notifications-ipn')!.spec
        .template.spec.containers[0].env;
      expect(env.find((e: { name: string }) => e.name === 'SMTP_PASS').valueFrom.secretKeyRef).toMatchObject({
        key: 'SMTP_PASS',
      });
      // Without a host nothing is configured: e-mail is refused rather than sent somewhere unexpected.
      expect(named('ConfigMap', 'paymesh-env').data.SMTP_HOST).toBeUndefined();
    });

    it('passes TRUST_PROXY (the ingress CIDR) and IPN_ALLOWED_TARGETS through to the services', async () => {
      expect(named('ConfigMap', 'paymesh-env').data.TRUST_PROXY).toBe('false');
      const cm = renderChart([
        {
          secrets: PRODUCTION.secrets,
          config: { trustProxy: '10.244.0.0/16', ipnAllowedTargets: 'ipn-receiver.internal' },
        },
      ]).manifests.find((m) => m.kind === 'ConfigMap')!.data;
      expect(cm.TRUST_PROXY).toBe('10.244.0.0/16');
      const gateway = (await configSchema('gateway-public')).safeParse({
        ...cm,
        MAIN_FRONTEND_ORIGIN: 'https://c.example',
      });
      expect(gateway.success && gateway.data.TRUST_PROXY).toBe('10.244.0.0/16');
      const ipn = (await configSchema('notifications-ipn')).safeParse(cm);
      expect(ipn.success && [...ipn.data.IPN_ALLOWED_TARGETS.hosts]).toEqual(['ipn-receiver.internal']);
    });

    it('runs the recurring processor as a CronJob calling the process route with a system key from a Secret', () => {
      const job = named('CronJob', 'paymesh-recurring-processor');
      expect(job.spec.schedule).toBe(values.recurringProcessor.schedule);
      expect(job.spec.concurrencyPolicy).toBe('Forbid');
      const pod = job.spec.jobTemplate.spec.template.spec;
      expect(pod.restartPolicy).toBe('Never');
      const container = pod.containers[0];
      expect(container.command.join(' ')).toContain('/system/recurring/process');
      const env = Object.fromEntries(container.env.map((e: any) => [e.name, e]));
      expect(env.PAYMESH_ADMIN_URL.value).toBe(
        `http://paymesh-gateway-admin.payments.svc.cluster.local:${values.services['gateway-admin'].port}/api/v1`,
      );
      expect(env.SYSTEM_API_KEY.valueFrom.secretKeyRef).toEqual({ name: 'paymesh', key: 'SYSTEM_API_KEY' });
      expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(container.image).toBe(named('Deployment', 'paymesh-gateway-admin').spec.template.spec.containers[0].image);
      // The gateway-admin policy's second rule selects exactly these pods.
      expect(job.spec.jobTemplate.spec.template.metadata.labels).toMatchObject({
        'app.kubernetes.io/component': 'recurring-processor',
        'app.kubernetes.io/instance': 'paymesh',
      });

      const custom = renderChart([
        {
          secrets: PRODUCTION.secrets,
          recurringProcessor: {
            schedule: '5 * * * *',
            timeZone: 'Europe/Berlin',
            apiKeySecret: { name: 'recurring-key', key: 'token' },
          },
        },
      ]).manifests.find((m) => m.kind === 'CronJob')!;
      expect(custom.spec).toMatchObject({ schedule: '5 * * * *', timeZone: 'Europe/Berlin' });
      expect(custom.spec.jobTemplate.spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef).toEqual({
        name: 'recurring-key',
        key: 'token',
      });

      const off = renderChart([{ secrets: PRODUCTION.secrets, recurringProcessor: { enabled: false } }]).manifests;
      expect(off.filter((m) => m.kind === 'CronJob')).toEqual([]);
      const adminPolicy = off.find((m) => m.kind === 'NetworkPolicy' && m.metadata.name === 'paymesh-gateway-admin')!;
      expect(adminPolicy.spec.ingress).toHaveLength(1);
      const { systemApiKey: _key, ...withoutKey } = PRODUCTION.secrets;
      expect(() => renderChart([{ secrets: withoutKey }])).toThrow(/recurringProcessor needs a system API key/);
    });

    it('applies per-service image, replicas and env overrides and a release-specific name', () => {
      const { manifests: ms } = renderChart(
        [
          {
            secrets: PRODUCTION.secrets,
            services: {
              tax: { replicas: 3, image: { repository: 'reg.local/tax', tag: '1.2.3' }, env: { LOG_LEVEL: 'debug' } },
            },
          },
        ],
        { release: 'acme', namespace: 'pay' },
      );
      const tax = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'acme-paymesh-tax')!;
      expect(tax.spec.replicas).toBe(3);
      expect(tax.spec.template.spec.containers[0].image).toBe('reg.local/tax:1.2.3');
      expect(tax.spec.template.spec.containers[0].env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
      const cm = ms.find((m) => m.kind === 'ConfigMap')!;
      expect(cm.metadata.name).toBe('acme-paymesh-env');
      expect(cm.data.TAX_GRPC_ADDR).toBe('acme-paymesh-tax.pay.svc.cluster.local:50054');
      const billing = ms.find((m) => m.kind === 'Deployment' && m.metadata.name === 'acme-paymesh-billing')!;
      expect(billing.spec.template.spec.containers[0].image).toBe('paymesh:0.1.0');
    });

    it('renders the production install of docs/deploy.md (helm/examples/ha-values.yaml): 3 replicas, 3 stream copies, an existing Secret', () => {
      const text = readFileSync(join(ROOT, 'helm', 'examples', 'ha-values.yaml'), 'utf8');
      // The guide shows the file as it is, so what a reader copies is what this test renders.
      expect(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8')).toContain(text);
      const ha = parse(text);
      const { manifests: ms } = renderChart([ha], { release: 'paymesh', namespace: 'payments' });
      for (const m of ms)
        expect(
          () => new MODELS[`${m.apiVersion}/${m.kind}`]!(m).validate(),
          `${m.kind} ${m.metadata.name}`,
        ).not.toThrow();
      const deployments = ms.filter((m) => m.kind === 'Deployment');
      expect(deployments.map((d) => [d.metadata.name, d.spec.replicas]).sort()).toEqual(
        SERVICE_DIRS.map((s) => [`paymesh-${s}`, 3]).sort(),
      );
      expect(ms.filter((m) => m.kind === 'Secret')).toEqual([]);
      for (const d of deployments) {
        const refs = d.spec.template.spec.containers[0].env
          .filter((e: any) => e.valueFrom?.secretKeyRef)
          .map((e: any) => e.valueFrom.secretKeyRef.name);
        expect(new Set(refs), d.metadata.name).toEqual(new Set(['paymesh-secrets']));
      }
      const cm = ms.find((m) => m.kind === 'ConfigMap')!.data;
      expect(cm.BUS_STREAM_REPLICAS).toBe('3');
      expect(cm.NATS_URL.split(',')).toHaveLength(3);
      expect(cm.TRUST_PROXY).toBe('10.244.0.0/16');
      expect(ms.filter((m) => m.kind === 'PodDisruptionBudget').every((p) => p.spec.maxUnavailable === 1)).toBe(true);
      expect(ms.filter((m) => m.kind === 'NetworkPolicy')).toHaveLength(SERVICE_DIRS.length);
      expect(
        ms
          .filter((m) => m.kind === 'Ingress')
          .map((i) => i.spec.rules[0].host)
          .sort(),
      ).toEqual(['admin.pay.example.com', 'pay.example.com']);
      const cron = ms.find((m) => m.kind === 'CronJob')!;
      expect(cron.spec.jobTemplate.spec.template.spec.containers[0].env).toContainEqual({
        name: 'SYSTEM_API_KEY',
        valueFrom: { secretKeyRef: { name: 'paymesh-secrets', key: 'SYSTEM_API_KEY' } },
      });
    });
  });
}
