import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './delivery';

describe('retryDelayMs', () => {
  it('doubles from the base delay and stops at the cap', () => {
    const s = { retryBaseMs: 500, retryMaxMs: 3000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(s, n))).toEqual([500, 1000, 2000, 3000, 3000]);
  });
});
