import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { cnamePointsAt, normalizeHostname } from './custom-domain';

describe('normalizeHostname', () => {
  it('lower-cases, trims and drops one trailing dot', () => {
    expect(normalizeHostname('  Pay.Shop.Example. ')).toBe('pay.shop.example');
    expect(normalizeHostname('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });

  it.each(['localhost', '*.shop.example', 'pay.shop.example:443', '10.0.0.1', 'pay..shop.example', '-pay.shop.example', 'pay_shop.example', 'bücher.example', ''])(
    'rejects %j naming the hostname field',
    (raw) => {
      try {
        normalizeHostname(raw);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).field).toBe('hostname');
      }
    },
  );

  it('rejects names longer than 253 characters', () => {
    const long = `${'a'.repeat(60)}.`.repeat(5) + 'example';
    expect(() => normalizeHostname(long)).toThrow(ValidationError);
  });
});

describe('cnamePointsAt', () => {
  it('matches the target ignoring case and the final dot', () => {
    expect(cnamePointsAt(['Checkout.Paymesh.Example.'], 'checkout.paymesh.example')).toBe(true);
    expect(cnamePointsAt(['other.example', 'checkout.paymesh.example'], 'checkout.paymesh.example.')).toBe(true);
  });

  it('does not match other names or lookalikes', () => {
    expect(cnamePointsAt([], 'checkout.paymesh.example')).toBe(false);
    expect(cnamePointsAt(['checkout.paymesh.example.evil.example'], 'checkout.paymesh.example')).toBe(false);
    expect(cnamePointsAt(['xcheckout.paymesh.example'], 'checkout.paymesh.example')).toBe(false);
  });
});
