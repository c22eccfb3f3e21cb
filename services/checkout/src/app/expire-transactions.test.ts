import { describe, expect, it } from 'vitest';
import { isExpiryDue } from './expire-transactions';

describe('abandoned transaction selection', () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  it('takes pending transactions whose expiry time has come, nothing else', () => {
    expect(isExpiryDue({ status: 0, expireAt: '2026-01-01T12:00:00.000Z', deletedAt: null }, now)).toBe(true);
    expect(isExpiryDue({ status: 0, expireAt: '2026-01-01T12:00:00.001Z', deletedAt: null }, now)).toBe(false);
    expect(isExpiryDue({ status: 0, expireAt: null, deletedAt: null }, now)).toBe(false);
    expect(isExpiryDue({ status: 0, deletedAt: null }, now)).toBe(false);
    expect(
      isExpiryDue({ status: 0, expireAt: '2026-01-01T00:00:00.000Z', deletedAt: '2026-01-01T01:00:00.000Z' }, now),
    ).toBe(false);
    for (const status of [-2, -1, 1, 2, 3, 4] as const) {
      expect(isExpiryDue({ status, expireAt: '2026-01-01T00:00:00.000Z', deletedAt: null }, now)).toBe(false);
    }
  });
});
