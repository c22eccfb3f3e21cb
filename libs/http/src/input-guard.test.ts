import { describe, expect, it } from 'vitest';
import { findUnsafeInput, isPercentEncoded, jsonDepthExceeds } from './input-guard';

describe('JSON depth guard', () => {
  it('counts nesting of objects and arrays, not brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":{"b":[1,2,{"c":3}]}}', 4)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[1,2,{"c":3}]}}', 3)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ s: '[[[[[[[[[[{{{{{{{{' }), 2)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ s: 'quote \\" [[[[[[' }), 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":1}{"b":2}', 1)).toBe(false);
  });

  it('refuses a body nested 10 000 levels deep without recursion', () => {
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect(jsonDepthExceeds(deep, 32)).toBe(true);
    expect(jsonDepthExceeds('['.repeat(100_000), 32)).toBe(true);
  });
});

describe('unsafe input finder', () => {
  it('names the first value or key with NUL or an unpaired surrogate', () => {
    expect(findUnsafeInput({ name: 'ok', items: [{ n: 'fine' }] }, 'body')).toBeUndefined();
    expect(findUnsafeInput({ items: [{ n: 'fi\u0000ne' }] }, 'body')?.path).toBe('body.items.0.n');
    expect(findUnsafeInput({ a: { 'k\uD800': 1 } }, 'body')?.path).toBe('body.a (a key)');
    expect(findUnsafeInput({ id: '\uDC00' }, 'params')).toEqual({
      path: 'params.id',
      problem: expect.stringMatching(/NUL/),
    });
    expect(findUnsafeInput(JSON.parse('{"amount":1e400}'), 'body')).toEqual({
      path: 'body.amount',
      problem: 'number out of range',
    });
    expect(findUnsafeInput({ amount: 1e300 }, 'body')).toBeUndefined();
    expect(findUnsafeInput(['😀'], 'querystring')).toBeUndefined();
    expect(findUnsafeInput(Buffer.from([0, 0xff]), 'body')).toBeUndefined();
    expect(findUnsafeInput(null, 'body')).toBeUndefined();
  });

  it('walks very deep values without overflowing the stack', () => {
    let v: unknown = 'bad\u0000';
    for (let i = 0; i < 50_000; i++) v = [v];
    expect(findUnsafeInput(v, 'body')?.path).toMatch(/^body(\.0)+$/);
  });
});

describe('query string encoding', () => {
  it('accepts valid percent-encoding and refuses broken or non-UTF-8 sequences', () => {
    expect(isPercentEncoded('page=1&q=M%C3%BCller+GmbH')).toBe(true);
    expect(isPercentEncoded('q=100%25')).toBe(true);
    expect(isPercentEncoded('q=%FF')).toBe(false);
    expect(isPercentEncoded('q=%ED%A0%80')).toBe(false);
    expect(isPercentEncoded('q=%E0%A4%A')).toBe(false);
    expect(isPercentEncoded('q=50%')).toBe(false);
  });
});
