import { describe, expect, it } from 'vitest';
import { EXPIRY_RETRY_CAP_MS, expiryRetryDelayMs } from './expiry-backoff';

describe('expiry retry backoff', () => {
  it('starts at the retry interval and doubles per attempt', () => {
    expect([0, 1, 2, 3, 4].map((n) => expiryRetryDelayMs(60_000, n, EXPIRY_RETRY_CAP_MS))).toEqual([
      60_000, 120_000, 240_000, 480_000, 960_000,
    ]);
  });

  it('stays at the cap for every later attempt, however many', () => {
    // 60 s * 2^8 = 4 h 16 min < 6 h; 2^9 would be 8 h 32 min.
    expect(expiryRetryDelayMs(60_000, 8, EXPIRY_RETRY_CAP_MS)).toBe(256 * 60_000);
    expect(expiryRetryDelayMs(60_000, 9, EXPIRY_RETRY_CAP_MS)).toBe(EXPIRY_RETRY_CAP_MS);
    for (const n of [10, 50, 1023, 5000, Number.MAX_SAFE_INTEGER])
      expect(expiryRetryDelayMs(60_000, n, EXPIRY_RETRY_CAP_MS)).toBe(EXPIRY_RETRY_CAP_MS);
  });

  it('never waits less than the retry interval, also with a cap below it or odd attempt counts', () => {
    expect(expiryRetryDelayMs(60_000, 3, 1_000)).toBe(60_000);
    expect(expiryRetryDelayMs(60_000, -1, EXPIRY_RETRY_CAP_MS)).toBe(60_000);
    expect(expiryRetryDelayMs(60_000, 1.7, EXPIRY_RETRY_CAP_MS)).toBe(120_000);
  });
});
