import { describe, expect, it } from 'vitest';
import { formatAmount } from './money';

describe('formatAmount', () => {
  it('uses the currency minor unit', () => {
    expect(formatAmount(1999, 'usd')).toBe('$19.99');
    expect(formatAmount(500, 'jpy')).toBe('¥500');
    expect(formatAmount(1234, 'kwd')).toMatch(/^KWD\s1\.234$/);
    expect(formatAmount(100, 'xyz')).toMatch(/1\.00/);
  });
});
