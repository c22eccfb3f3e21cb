import { describe, expect, it } from 'vitest';
import { RetryableOnce } from './retryable-once';

describe('RetryableOnce', () => {
  it('starts the step on the first call and shares it with later calls', async () => {
    let starts = 0;
    const once = new RetryableOnce(async () => {
      starts += 1;
      return starts;
    });
    expect(once.started).toBe(false);
    const first = once.run();
    const second = once.run();
    expect(once.started).toBe(true);
    expect(second).toBe(first);
    expect(await first).toBe(1);
    expect(await once.run()).toBe(1);
    expect(starts).toBe(1);
  });

  it('forgets a failed step so that the next call starts it again', async () => {
    let starts = 0;
    const once = new RetryableOnce(async () => {
      starts += 1;
      if (starts === 1) throw new Error('server down');
      return 'ready';
    });
    const failed = once.run();
    expect(once.run()).toBe(failed);
    await expect(failed).rejects.toThrow('server down');
    expect(once.started).toBe(false);
    expect(await once.run()).toBe('ready');
    expect(starts).toBe(2);
    expect(once.started).toBe(true);
  });

  it('runs the step again after a reset', async () => {
    let starts = 0;
    const once = new RetryableOnce(async () => {
      starts += 1;
    });
    await once.run();
    once.reset();
    expect(once.started).toBe(false);
    await once.run();
    await once.run();
    expect(starts).toBe(2);
  });

  it('is a step done already when made with done()', async () => {
    const once = RetryableOnce.done('known');
    expect(once.started).toBe(true);
    expect(await once.run()).toBe('known');
  });
});
