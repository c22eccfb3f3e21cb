import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logLineOf, api, eventually, startTestMesh, NATS_URL, PG_URL, type TestMesh } from '../support/mesh';
import { TcpProxy } from '../support/tcp-proxy';
import { OtlpReceiver } from '../support/otlp-receiver';

const BACKENDS = ['checkout', 'payments-webhooks', 'billing', 'tax', 'recurring', 'documents', 'notifications-ipn'];

describe('foundation: the mesh runs, is healthy and traceable', () => {
  let mesh: TestMesh;
  let proxy: TcpProxy;
  let otlp: OtlpReceiver;

  beforeAll(async () => {
    const pg = new URL(PG_URL);
    proxy = new TcpProxy(pg.hostname, Number(pg.port || 5432));
    const port = await proxy.start();
    pg.host = `127.0.0.1:${port}`;
    otlp = new OtlpReceiver();
    const otlpUrl = await otlp.start();
    mesh = await startTestMesh({ storeUrl: pg.toString(), env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl } });
  });

  afterAll(async () => {
    await mesh?.dispose();
    await proxy?.stop();
    await otlp?.stop();
  });

  it('answers GET /health with 200 and a unique X-Request-ID on both gateways', async () => {
    for (const root of [mesh.adminBaseUrl, mesh.publicBaseUrl].map((u) => u.replace(/\/api\/v1$/, ''))) {
      const a = await api('GET', `${root}/health`);
      const b = await api('GET', `${root}/health`);
      expect(a.status).toBe(200);
      expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
    }
  });

  it('keeps a sane incoming X-Request-ID and replaces an unsafe one', async () => {
    const root = mesh.adminBaseUrl.replace(/\/api\/v1$/, '');
    const kept = await api('GET', `${root}/health`, { headers: { 'x-request-id': 'client-supplied-123' } });
    expect(kept.headers.get('x-request-id')).toBe('client-supplied-123');
    const replaced = await api('GET', `${root}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with a 404 envelope that still carries X-Request-ID', async () => {
    for (const base of [mesh.adminBaseUrl, mesh.publicBaseUrl]) {
      const res = await api('GET', `${base}/no-such-route`);
      expect(res.status).toBe(404);
      expect(typeof res.body.error).toBe('string');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('reports datastore, NATS and every backend service in /internal/health', async () => {
    for (const root of [mesh.adminBaseUrl, mesh.publicBaseUrl].map((u) => u.replace(/\/api\/v1$/, ''))) {
      const res = await api('GET', `${root}/internal/health`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
      expect(res.body.checks.datastore).toMatchObject({ status: 'up', critical: true });
      expect(res.body.checks.nats).toMatchObject({ status: 'up', critical: false });
      for (const s of BACKENDS) expect(res.body.checks[s], s).toMatchObject({ status: 'up', critical: false });
    }
  });

  it('gives every event stream the size cap of BUS_STREAM_MAX_BYTES (the test meshes: 64 MiB)', async () => {
    const nc = await connect({ servers: NATS_URL });
    try {
      const caps = new Map<string, number>();
      for await (const si of (await nc.jetstreamManager()).streams.list()) {
        if (si.config.name.startsWith(`${mesh.namespace.toUpperCase()}_`))
          caps.set(si.config.name, si.config.max_bytes);
      }
      expect(new Set(caps.values())).toEqual(new Set([64 * 1024 * 1024]));
    } finally {
      await nc.close();
    }
  });

  it('bootstraps a merchant whose key authenticates on /api/v1 and the /v1 alias alike', async () => {
    const boot = await mesh.bootstrap();
    expect(boot.organizationId).toMatch(/^[0-9a-f]{24}$/);
    expect(boot.siteId).toMatch(/^[0-9a-f]{24}$/);
    expect(boot.apiKey).toMatch(/^sk_live_[a-z0-9]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(boot.webhookSigningSecret).toMatch(/^whsec_/);
    const a = await api('GET', `${mesh.adminBaseUrl}/sites`, { token: boot.apiKey });
    expect(a.status).toBe(200);
    expect(a.body.items.map((s: { id: string }) => s.id)).toEqual([boot.siteId]);
    expect(a.body.items[0].webhookSigningSecret).toBeUndefined();
    const alias = await api('GET', mesh.adminBaseUrl.replace('/api/v1', '/v1') + '/sites', { token: boot.apiKey });
    expect(alias.status).toBe(200);
    expect(alias.body).toEqual(a.body);
    const wrong = await api('GET', `${mesh.adminBaseUrl}/sites`, { token: boot.apiKey.slice(0, -2) + 'xx' });
    expect(wrong.status).toBe(401);
    expect(typeof wrong.body.error).toBe('string');
    const none = await api('GET', `${mesh.adminBaseUrl}/sites`);
    expect(none.status).toBe(401);
  });

  it('follows one X-Request-ID through the gateway, a gRPC service and a JetStream consumer', async () => {
    const boot = await mesh.bootstrap();
    const requestId = `trace-${Date.now()}-abc`;
    const res = await api('POST', `${mesh.adminBaseUrl}/sites`, {
      token: boot.apiKey,
      headers: { 'x-request-id': requestId },
      body: { name: 'Traced shop', url: 'https://traced.example' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const siteId = res.body.id as string;

    const lineWith = (svc: string, pred: (l: Record<string, unknown>) => boolean) =>
      logLineOf(mesh, svc, requestId, pred);
    await eventually(() => lineWith('gateway-admin', () => true));
    await eventually(() => lineWith('checkout', (l) => l.siteId === siteId && l.msg === 'site created'));
    // billing reacts to checkout.site.created, consumed from JetStream with the request's headers
    await eventually(() =>
      lineWith('billing', (l) => l.siteId === siteId && l.msg === 'site invoicing settings initialised'),
    );

    // The same trace spans all three services in the exported spans.
    const spans = await eventually(() => {
      const consumer = otlp.spans.find(
        (s) =>
          s.service === 'billing' &&
          s.name === 'consume checkout.site.created' &&
          s.attributes['request.id'] === requestId,
      );
      if (!consumer) return undefined;
      const inTrace = otlp.spans.filter((s) => s.traceId === consumer.traceId);
      const services = new Set(inTrace.map((s) => s.service));
      return services.has('gateway-admin') && services.has('checkout') ? inTrace : undefined;
    }, 20_000);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['gateway-admin', 'checkout', 'billing']));
  });

  it('answers 503 naming the datastore while it is down, and recovers without a restart', async () => {
    const root = mesh.adminBaseUrl.replace(/\/api\/v1$/, '');
    proxy.pause();
    try {
      const down = await eventually(async () => {
        const r = await api('GET', `${root}/internal/health`);
        return r.status === 503 ? r : undefined;
      }, 15_000);
      expect(down.body.checks.datastore.status).toBe('down');
      expect(down.body.checks.nats.status).toBe('up');
      const shallow = await api('GET', `${root}/health`);
      expect(shallow.status).toBe(200);
    } finally {
      proxy.resume();
    }
    const up = await eventually(async () => {
      const r = await api('GET', `${root}/internal/health`);
      return r.status === 200 ? r : undefined;
    }, 20_000);
    expect(up.body.checks.datastore.status).toBe('up');
  });
});
