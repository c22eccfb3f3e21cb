import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { hasUnstorableText, toBody } from './documents';

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
