import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { eventId } from './event-id';

describe('eventId', () => {
  it('is deterministic and versioned', () => {
    const a = eventId('payments.transaction.status_changed', 'tx_1', 3);
    expect(a).toBe(eventId('payments.transaction.status_changed', 'tx_1', 3));
    expect(a).toMatch(/^v1:[0-9a-f]{64}$/);
  });

  it('differs for different facts', () => {
    const base = eventId('payments.transaction.status_changed', 'tx_1', 3);
    expect(eventId('payments.transaction.status_changed', 'tx_1', 4)).not.toBe(base);
    expect(eventId('payments.transaction.status_changed', 'tx_2', 3)).not.toBe(base);
  });

  it('frames parts unambiguously', () => {
    expect(eventId('a', 'b')).not.toBe(eventId('ab'));
    expect(eventId('a.b')).not.toBe(eventId('a', 'b'));
    expect(eventId('a', '')).not.toBe(eventId('a'));
  });

  it('treats numbers like their decimal strings', () => {
    expect(eventId('x', 7)).toBe(eventId('x', '7'));
  });

  it('rejects no parts and non-finite numbers', () => {
    expect(() => eventId()).toThrow(ValidationError);
    expect(() => eventId('x', Number.NaN)).toThrow(ValidationError);
    expect(() => eventId('x', Number.POSITIVE_INFINITY)).toThrow(ValidationError);
  });
});
