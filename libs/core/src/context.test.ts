import { describe, expect, it } from 'vitest';
import { contextFromHeaders, contextHeaders, currentRequestId, isSaneRequestId, requestIdFrom, runWithContext } from './context';

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
    const ctx = contextFromHeaders((n) => ({ 'x-request-id': 'req-00000001', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })[n]);
    await runWithContext(ctx, async () => {
      await new Promise((r) => setTimeout(r, 5));
      expect(currentRequestId()).toBe('req-00000001');
      expect(contextHeaders()).toMatchObject({ 'x-request-id': 'req-00000001', traceparent: ctx.traceparent });
    });
    expect(currentRequestId()).toBeUndefined();
    expect(contextHeaders()).toEqual({});
  });
});

describe('log masking', () => {
  it('masks single-use tokens in logged URLs', async () => {
    const { maskUrl } = await import('./logger');
    expect(maskUrl('/api/v1/checkouts/cs_1/handoff/SECRET123/consume')).toBe('/api/v1/checkouts/cs_1/handoff/***/consume');
    expect(maskUrl('/api/v1/checkouts/cs_1/handoff')).toBe('/api/v1/checkouts/cs_1/handoff');
  });
});
