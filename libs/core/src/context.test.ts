import { describe, expect, it } from 'vitest';
import { letTimePass } from '../../../test/support/kit';
import {
  activeTraceHeaders,
  contextFromHeaders,
  contextHeaders,
  currentRequestId,
  isSaneRequestId,
  requestIdFrom,
  runInSpan,
  runWithContext,
  setTraceBridge,
  type SpanOptions,
  type TraceBridge,
} from './context';

describe('request context', () => {
  it('keeps sane request IDs and replaces unsafe or oversized ones', () => {
    expect(isSaneRequestId('abc-123_XYZ:9.z')).toBe(true);
    expect(isSaneRequestId('short')).toBe(false);
    expect(isSaneRequestId('has space in it')).toBe(false);
    expect(isSaneRequestId('x'.repeat(129))).toBe(false);
    expect(isSaneRequestId('evil\r\nSet-Cookie: a=b')).toBe(false);
    expect(requestIdFrom('client-id-0001')).toBe('client-id-0001');
    expect(requestIdFrom('bad id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(['first-id-0001', 'second'])).toBe('first-id-0001');
  });

  it('carries the context across awaits and into propagation headers', async () => {
    const ctx = contextFromHeaders(
      (n) =>
        ({ 'x-request-id': 'req-00000001', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })[n],
    );
    await runWithContext(ctx, async () => {
      // A timer is an asynchronous hop the context must survive.
      await letTimePass(5, 'an asynchronous hop through a timer');
      expect(currentRequestId()).toBe('req-00000001');
      expect(contextHeaders()).toMatchObject({ 'x-request-id': 'req-00000001', traceparent: ctx.traceparent });
    });
    expect(currentRequestId()).toBeUndefined();
    expect(contextHeaders()).toEqual({});
  });

  it('without tracing, a producer span is just the call and stored trace headers travel unchanged', async () => {
    await expect(runInSpan('publish x.y.z', async () => 42, { kind: 'producer' })).resolves.toBe(42);
    expect(activeTraceHeaders()).toEqual({});
  });

  it('with tracing, a child span is tagged with the request ID and the active span is what propagates', () => {
    const started: { name: string; opts: SpanOptions | undefined }[] = [];
    const bridge: TraceBridge = {
      inject: (carrier) => {
        carrier.traceparent = `00-0af7651916cd43dd8448eb211c80319c-${String(started.length).padStart(16, '0')}-01`;
      },
      runInSpan: (_ctx, _name, fn) => fn(),
      runInChildSpan: (name, fn, opts) => {
        started.push({ name, opts });
        return fn();
      },
      activeTraceId: () => undefined,
      tagActiveSpan: () => undefined,
    };
    setTraceBridge(bridge);
    try {
      const headers = runWithContext({ requestId: 'req-00000002' }, () =>
        runInSpan('publish a.b.c', () => activeTraceHeaders(), { kind: 'producer' }),
      );
      expect(started).toEqual([
        { name: 'publish a.b.c', opts: { kind: 'producer', attributes: { 'request.id': 'req-00000002' } } },
      ]);
      expect(headers).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000001-01' });
    } finally {
      setTraceBridge(undefined);
    }
  });
});

describe('log masking', () => {
  it('masks single-use tokens in logged URLs', async () => {
    const { maskUrl } = await import('./logger');
    expect(maskUrl('/api/v1/checkouts/cs_1/handoff/SECRET123/consume')).toBe(
      '/api/v1/checkouts/cs_1/handoff/***/consume',
    );
    expect(maskUrl('/api/v1/checkouts/cs_1/handoff')).toBe('/api/v1/checkouts/cs_1/handoff');
  });
});
