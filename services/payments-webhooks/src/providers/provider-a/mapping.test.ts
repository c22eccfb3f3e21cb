import { describe, expect, it } from 'vitest';
import { outcomeOfEvent, outcomeOfIntentStatus } from './mapping';

describe('provider_a mapping', () => {
  it('maps the three payment intent outcome events and ignores the rest', () => {
    expect(outcomeOfEvent('payment_intent.succeeded')).toBe('succeeded');
    expect(outcomeOfEvent('payment_intent.payment_failed')).toBe('failed');
    expect(outcomeOfEvent('payment_intent.canceled')).toBe('cancelled');
    for (const t of [
      'payment_intent.created',
      'charge.succeeded',
      'charge.refunded',
      'charge.dispute.created',
      'charge.dispute.closed',
    ]) {
      expect(outcomeOfEvent(t)).toBeNull();
    }
  });

  it('reads only succeeded and canceled intents as settled', () => {
    expect(outcomeOfIntentStatus('succeeded')).toBe('succeeded');
    expect(outcomeOfIntentStatus('canceled')).toBe('cancelled');
    for (const s of [
      'requires_payment_method',
      'requires_confirmation',
      'requires_action',
      'processing',
      'requires_capture',
      'brand_new',
    ]) {
      expect(outcomeOfIntentStatus(s)).toBe('pending');
    }
  });
});
