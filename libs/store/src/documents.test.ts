import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { assertCounterItems, hasUnstorableText, prepareReplaceMany, toBody } from './documents';

describe('unstorable text', () => {
  it('finds NUL characters and unpaired surrogates, not paired ones or look-alike text', () => {
    expect(hasUnstorableText('a\u0000b')).toBe(true);
    expect(hasUnstorableText('x\ud800')).toBe(true);
    expect(hasUnstorableText('\udfffx')).toBe(true);
    expect(hasUnstorableText('emoji \u{1F600}')).toBe(false);
    expect(hasUnstorableText('backslash \\u0000')).toBe(false);
  });

  it('toBody rejects them anywhere in a document, keys included', () => {
    expect(() => toBody({ a: { b: ['ok', 'x\u0000'] } })).toThrow(ValidationError);
    expect(() => toBody({ ['k\ud83d']: 1 })).toThrow(ValidationError);
    expect(toBody({ a: 'emoji \u{1F600} and \\u0000 text', b: '\\\\' })).toEqual({
      a: 'emoji \u{1F600} and \\u0000 text',
      b: '\\\\',
    });
  });
});

describe('batch write arguments', () => {
  it('assertCounterItems refuses repeated or empty ids and counters that are not finite numbers', () => {
    expect(() =>
      assertCounterItems('totals', [
        { id: 'a', deltas: { eur: 1 } },
        { id: 'b', deltas: {} },
      ]),
    ).not.toThrow();
    expect(() =>
      assertCounterItems('totals', [
        { id: 'a', deltas: {} },
        { id: 'a', deltas: {} },
      ]),
    ).toThrow('addToCounters: ids must differ');
    expect(() => assertCounterItems('totals', [{ id: '', deltas: {} }])).toThrow(ValidationError);
    expect(() => assertCounterItems('totals', [{ id: 'a', deltas: { eur: Number.NaN } }])).toThrow(ValidationError);
    expect(() => assertCounterItems('a.b', [{ id: 'a', deltas: {} }])).toThrow(ValidationError);
  });

  it('prepareReplaceMany refuses repeated ids and bad versions, and gives each item its body', () => {
    expect(
      prepareReplaceMany([
        { id: 'a', expectedVersion: 1, next: { n: 1 } },
        { id: 'b', expectedVersion: 4, next: { n: 2 } },
      ]),
    ).toEqual([
      { id: 'a', expectedVersion: 1, next: { n: 1 }, body: { n: 1 } },
      { id: 'b', expectedVersion: 4, next: { n: 2 }, body: { n: 2 } },
    ]);
    expect(() =>
      prepareReplaceMany([
        { id: 'a', expectedVersion: 1, next: {} },
        { id: 'a', expectedVersion: 2, next: {} },
      ]),
    ).toThrow('replaceMany: ids must differ');
    expect(() => prepareReplaceMany([{ id: 'a', expectedVersion: 0, next: {} }])).toThrow(ValidationError);
    expect(() => prepareReplaceMany([{ id: 'a', expectedVersion: 1, next: { t: 'x\u0000' } }])).toThrow(
      ValidationError,
    );
  });
});
