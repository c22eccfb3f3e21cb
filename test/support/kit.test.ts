import { describe, expect, it } from 'vitest';
import { afterSentinel, letTimePass, testDatabase, waitFor } from './kit';

describe('test kit', () => {
  it('waitFor answers the first truthy value of the condition', async () => {
    let n = 0;
    await expect(waitFor(() => (++n >= 3 ? { n } : undefined), { stepMs: 1 })).resolves.toEqual({ n: 3 });
  });

  it('waitFor treats a throwing check as not yet and names what it waited for, and the last outcome, on timeout', async () => {
    await expect(waitFor(() => false, { timeoutMs: 30, stepMs: 5, what: 'the second delivery' })).rejects.toThrow(
      /^timed out after 30 ms waiting for the second delivery \(last value: false\)$/,
    );
    let calls = 0;
    const flaky = () => {
      calls += 1;
      if (calls < 3) throw new Error('not ready');
      return 'ready';
    };
    await expect(waitFor(flaky, { stepMs: 1 })).resolves.toBe('ready');
    await expect(
      waitFor(
        () => {
          throw new Error('store down');
        },
        { timeoutMs: 20, stepMs: 5 },
      ),
    ).rejects.toThrow('waiting for the condition (last check threw: store down)');
  });

  it('afterSentinel sends the sentinel, then waits until it arrived', async () => {
    const seen: string[] = [];
    const queue: string[] = ['earlier'];
    const drain = setInterval(() => {
      const next = queue.shift();
      if (next) seen.push(next);
    }, 2);
    try {
      await afterSentinel(
        () => queue.push('sentinel'),
        () => seen.includes('sentinel'),
      );
      expect(seen).toEqual(['earlier', 'sentinel']);
    } finally {
      clearInterval(drain);
    }
  });

  it('letTimePass needs its reason; testDatabase makes distinct lower-case names', async () => {
    await expect(letTimePass(1, '')).rejects.toThrow('reason');
    const started = Date.now();
    await letTimePass(20, 'a TTL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const a = testDatabase('ipn_test');
    expect(a).toMatch(/^ipn_test_[0-9a-f]{10}$/);
    expect(testDatabase('ipn_test')).not.toBe(a);
  });
});
