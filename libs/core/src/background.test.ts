import { describe, expect, it } from 'vitest';
import { backgroundInFlight, trackBackground } from './background';

describe('background work', () => {
  it('counts a background task until it settles, failed ones too', async () => {
    const before = backgroundInFlight();
    let finish: () => void = () => undefined;
    const ok = trackBackground(new Promise<void>((resolve) => (finish = resolve)));
    const failed = trackBackground(Promise.reject(new Error('boom')));
    expect(backgroundInFlight()).toBe(before + 2);
    await expect(failed).rejects.toThrow('boom');
    expect(backgroundInFlight()).toBe(before + 1);
    finish();
    await ok;
    expect(backgroundInFlight()).toBe(before);
  });
});
