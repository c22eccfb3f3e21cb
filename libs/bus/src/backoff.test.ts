import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './backoff';

describe('retryDelayMs', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect(retryDelayMs(1)).toBe(1_000);
    expect(retryDelayMs(2)).toBe(2_000);
    expect(retryDelayMs(3)).toBe(4_000);
    expect(retryDelayMs(20)).toBe(60_000);
    expect(retryDelayMs(1, { initialMs: 100, maxMs: 250 })).toBe(100);
    expect(retryDelayMs(3, { initialMs: 100, maxMs: 250 })).toBe(250);
    expect(retryDelayMs(1_000, { initialMs: 100 })).toBe(60_000);
  });
});
