import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logLineOf, api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

// The mesh with telemetry off (no OTEL_EXPORTER_OTLP_ENDPOINT, the default): the OpenTelemetry SDK
// is not loaded, yet the request ID still travels in gRPC metadata and NATS headers onto every
// log line, and a caller's traceparent is carried through unchanged. foundation.test.ts covers
// the same path with telemetry on (spans exported to an OTLP receiver).
describe('request ID propagation with telemetry off', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await startTestMesh();
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('follows one X-Request-ID and the caller trace ID through the gateway, a gRPC service and a JetStream consumer', async () => {
    const boot = await mesh.bootstrap();
    const requestId = `untraced-${Date.now()}-abc`;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await api('POST', `${mesh.adminBaseUrl}/sites`, {
      token: boot.apiKey,
      headers: { 'x-request-id': requestId, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: { name: 'Untraced shop', url: 'https://untraced.example' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const siteId = res.body.id as string;

    const lineWith = (svc: string, pred: (l: Record<string, unknown>) => boolean) =>
      logLineOf(mesh, svc, requestId, pred);
    await eventually(() => lineWith('gateway-admin', () => true));
    const created = await eventually(() =>
      lineWith('checkout', (l) => l.siteId === siteId && l.msg === 'site created'),
    );
    // billing reacts to checkout.site.created, consumed from JetStream with the request's headers
    const consumed = await eventually(() =>
      lineWith('billing', (l) => l.siteId === siteId && l.msg === 'site invoicing settings initialised'),
    );
    expect(created.traceId).toBe(traceId);
    expect(consumed.traceId).toBe(traceId);

    // Every line written for this request carries its ID; none carries a trace ID of its own.
    for (const svc of ['gateway-admin', 'checkout', 'billing']) {
      const lines = mesh
        .logs(svc)
        .filter((l) => l.startsWith('{') && l.includes(requestId))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) if (l.traceId !== undefined) expect(l.traceId).toBe(traceId);
    }
  });
});
