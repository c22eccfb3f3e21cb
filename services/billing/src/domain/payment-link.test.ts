import { describe, expect, it } from 'vitest';
import { assertPayable, linkAmount, linkExpiryHours } from './payment-link';

describe('payment link amount', () => {
  it.each([
    ['no amount: the outstanding amount', 11900, undefined, 11900],
    ['50 minor units (the minimum)', 11900, 50, 50],
    ['a partial amount', 11900, 5000, 5000],
    ['exactly the outstanding amount', 11900, 11900, 11900],
  ])('%s', (_name, outstanding, requested, expected) => {
    expect(linkAmount(outstanding, requested)).toBe(expected);
  });

  it.each([
    ['49 minor units', 11900, 49, /at least 50/],
    ['30 minor units', 11900, 30, /at least 50/],
    ['0', 11900, 0, /at least 50/],
    ['a negative amount', 11900, -100, /at least 50/],
    ['more than the outstanding amount', 11900, 11901, /at most the outstanding amount \(11900\)/],
    ['a fraction', 11900, 100.5, /integer/],
    ['a default below the minimum', 40, undefined, /below the smallest payment link/],
  ])('refuses %s with a 400', (_name, outstanding, requested, message) => {
    expect(() => linkAmount(outstanding, requested)).toThrow(message);
    try {
      linkAmount(outstanding, requested);
    } catch (err) {
      expect((err as { kind?: string }).kind).toBe('validation');
    }
  });
});

describe('payment link expiry', () => {
  it('defaults to the invoicing setting, else 336 hours', () => {
    expect(linkExpiryHours(undefined, 72)).toBe(72);
    expect(linkExpiryHours(undefined, null)).toBe(336);
    expect(linkExpiryHours(undefined, undefined)).toBe(336);
  });

  it('takes explicit values from 1 to 3120', () => {
    expect(linkExpiryHours(1, 72)).toBe(1);
    expect(linkExpiryHours(3120, 72)).toBe(3120);
  });

  it.each([0, 3121, -1, 1.5])('refuses expireInHours %s with a 400', (hours) => {
    expect(() => linkExpiryHours(hours, 72)).toThrow(/expireInHours must be from 1 to 3120/);
  });
});

describe('which invoices can be paid by link', () => {
  const issued = { status: 'issued', total: 11900, outstanding: 11900 };

  it('an issued or partly paid invoice with something outstanding', () => {
    expect(() => assertPayable(issued)).not.toThrow();
    expect(() => assertPayable({ status: 'partially_paid', total: 11900, outstanding: 100 })).not.toThrow();
  });

  it.each([
    ['a draft', { ...issued, status: 'draft' }, /draft/],
    ['a voided invoice', { ...issued, status: 'void' }, /voided/],
    ['a paid invoice', { ...issued, status: 'paid', outstanding: 0 }, /settled/],
    ['an invoice with nothing outstanding', { ...issued, outstanding: 0 }, /settled/],
    ['an empty invoice', { status: 'issued', total: 0, outstanding: 0 }, /empty/],
  ])('refuses %s with a 400', (_name, inv, message) => {
    expect(() => assertPayable(inv)).toThrow(message);
  });
});
