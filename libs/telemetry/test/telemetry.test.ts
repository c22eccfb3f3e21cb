import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../../../test/support/otlp-receiver';

const run = promisify(execFile);
const LIB = join(__dirname, '..');

/**
 * A service-like process: loads the register entry first (as every main.ts does), then serves one
 * HTTP request inside a request context, consumes a "message" in a span of its own, and reports
 * what it saw. Runs in a child process so each mode starts from a clean module cache.
 */
const CHILD = `
const t0 = process.hrtime.bigint();
require('./dist/register.js');
const http = require('node:http');
const core = require('@paymesh/core');
const telemetry = require('./dist/index.js');
(async () => {
  const seen = {};
  const server = http.createServer((req, res) => {
    const ctx = core.contextFromHeaders((n) => req.headers[n]);
    core.runWithContext(ctx, () => {
      seen.httpHeaders = core.contextHeaders();
      core.runWithContext({ requestId: ctx.requestId, traceparent: seen.httpHeaders.traceparent }, () => {
        seen.consumeHeaders = core.contextHeaders();
        seen.consumeTraceId = core.activeTraceId();
      }, 'consume demo.subject');
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/work', { headers: JSON.parse(process.env.REQ_HEADERS) });
  await res.text();
  server.close();
  await telemetry.stopTelemetry();
  const loaded = Object.keys(require.cache);
  console.log(JSON.stringify({
    ...seen,
    // The API package (a few kB of no-op facades) is always there; the SDK and instrumentations are what costs.
    sdkLoaded: loaded.some((p) => /@opentelemetry[\\/](?!api[\\/])/.test(p)),
  }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

async function child(env: Record<string, string>, headers: Record<string, string>) {
  const base = { ...process.env };
  delete base.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete base.OTEL_SDK_DISABLED;
  const { stdout } = await run(process.execPath, ['-e', CHILD], {
    cwd: LIB,
    env: { ...base, OTEL_SERVICE_NAME: 'telemetry-test', REQ_HEADERS: JSON.stringify(headers), ...env },
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    httpHeaders: Record<string, string>;
    consumeHeaders: Record<string, string>;
    consumeTraceId?: string;
    sdkLoaded: boolean;
  };
}

describe('telemetry modes', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = new OtlpReceiver();
    await otlp.start();
  });
  afterAll(async () => otlp?.stop());

  it('without an OTLP endpoint loads no OpenTelemetry module and still carries the request ID and an incoming traceparent', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const out = await child({}, { 'x-request-id': 'req-off-12345', traceparent });
    expect(out.sdkLoaded).toBe(false);
    expect(out.httpHeaders).toEqual({ 'x-request-id': 'req-off-12345', traceparent });
    expect(out.consumeHeaders).toEqual({ 'x-request-id': 'req-off-12345', traceparent });
    // Log lines carry this trace ID (logger mixin) even with tracing off.
    expect(out.consumeTraceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(otlp.spans).toHaveLength(0);
  });

  it('with an OTLP endpoint exports the HTTP server span and our consume span in one trace, tagged with the request ID', async () => {
    const out = await child({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }, { 'x-request-id': 'req-on-12345' });
    expect(out.sdkLoaded).toBe(true);
    expect(out.httpHeaders['x-request-id']).toBe('req-on-12345');
    // The HTTP instrumentation's server span is the parent written into outgoing headers.
    const [, traceId, parentSpanId] = out.httpHeaders.traceparent?.split('-') ?? [];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(out.consumeHeaders.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const inTrace = otlp.spans.filter((s) => s.traceId === traceId);
    const consume = inTrace.find((s) => s.name === 'consume demo.subject');
    expect(consume?.service).toBe('telemetry-test');
    expect(consume?.attributes['request.id']).toBe('req-on-12345');
    expect(consume?.parentSpanId).toBe(parentSpanId);
    const server = inTrace.find((s) => s.spanId === parentSpanId);
    expect(server?.attributes['http.route'] ?? server?.name).toBeTruthy();
    expect(otlp.spans.some((s) => s.name.includes('metric'))).toBe(false);
  });
});
