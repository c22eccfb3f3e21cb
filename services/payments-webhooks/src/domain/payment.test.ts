import { describe, expect, it } from 'vitest';
import { nextPaymentStatus } from './payment';

describe('payment record status', () => {
  it('keeps succeeded and cancelled final', () => {
    expect(nextPaymentStatus('succeeded', 'failed')).toBe('succeeded');
    expect(nextPaymentStatus('succeeded', 'cancelled')).toBe('succeeded');
    expect(nextPaymentStatus('cancelled', 'succeeded')).toBe('cancelled');
  });

  it('lets a failed attempt be followed by success (the buyer retried)', () => {
    expect(nextPaymentStatus('pending', 'failed')).toBe('failed');
    expect(nextPaymentStatus('failed', 'succeeded')).toBe('succeeded');
    expect(nextPaymentStatus('failed', 'pending')).toBe('failed');
  });
});
