import { describe, expect, it } from 'vitest';
import { canonicalJson, isIdempotencyKey, requestFingerprint } from './fingerprint';

describe('canonical JSON', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('drops undefined members as JSON does, and writes undefined array slots as null', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('request fingerprint', () => {
  const base = {
    method: 'POST',
    path: '/api/v1/checkouts/s1/create',
    body: { amount: 100, currency: 'EUR', items: [{ name: 'a', quantity: 1 }] },
  };

  it('is versioned SHA-256 and the same for a body in another key order', () => {
    const fp = requestFingerprint(base);
    expect(fp).toMatch(/^idem1:[0-9a-f]{64}$/);
    expect(
      requestFingerprint({
        ...base,
        method: 'post',
        body: { items: [{ quantity: 1, name: 'a' }], currency: 'EUR', amount: 100 },
      }),
    ).toBe(fp);
  });

  it('differs for another body, route or method', () => {
    const fp = requestFingerprint(base);
    expect(requestFingerprint({ ...base, body: { ...base.body, amount: 101 } })).not.toBe(fp);
    expect(
      requestFingerprint({
        ...base,
        body: {
          ...base.body,
          items: [
            { name: 'a', quantity: 1 },
            { name: 'a', quantity: 1 },
          ],
        },
      }),
    ).not.toBe(fp);
    expect(requestFingerprint({ ...base, path: '/api/v1/checkouts/s2/create' })).not.toBe(fp);
    expect(requestFingerprint({ ...base, method: 'PUT' })).not.toBe(fp);
  });

  it('keeps the parts apart: a path ending in what a body starts with is another request', () => {
    expect(requestFingerprint({ method: 'POST', path: '/a', body: 'b' })).not.toBe(
      requestFingerprint({ method: 'POST', path: '/a"', body: 'b' }),
    );
  });

  it('counts a file body by its bytes, and no body as null', () => {
    const file = (s: string) => requestFingerprint({ method: 'POST', path: '/import', body: Buffer.from(s) });
    expect(file('a,b\n1,2\n')).toBe(file('a,b\n1,2\n'));
    expect(file('a,b\n1,2\n')).not.toBe(file('a,b\n1,3\n'));
    expect(requestFingerprint({ method: 'POST', path: '/x', body: undefined })).toBe(
      requestFingerprint({ method: 'POST', path: '/x', body: null }),
    );
  });
});

describe('Idempotency-Key values', () => {
  it('are 1-255 printable ASCII characters', () => {
    expect(isIdempotencyKey('order-42')).toBe(true);
    expect(isIdempotencyKey('order 42 ~!')).toBe(true);
    expect(isIdempotencyKey('k'.repeat(255))).toBe(true);
    expect(isIdempotencyKey('k'.repeat(256))).toBe(false);
    expect(isIdempotencyKey('')).toBe(false);
    expect(isIdempotencyKey('bestellung-ä')).toBe(false);
    expect(isIdempotencyKey('tab\there')).toBe(false);
    expect(isIdempotencyKey('del\x7f')).toBe(false);
  });
});
