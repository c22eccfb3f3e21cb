import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { largestRemainder, roundHalfAwayFromZero } from './money';

describe('largestRemainder', () => {
  it('splits exactly, each part within one unit of its share', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 20 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (weights, share) => {
          const total = weights.reduce((a, b) => a + b, 0);
          fc.pre(total > 0);
          const amount = Math.floor(total * share);
          const parts = largestRemainder(weights, amount, total);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
          parts.forEach((p, i) => {
            const exact = ((weights[i] ?? 0) * amount) / total;
            expect(p).toBeGreaterThanOrEqual(Math.floor(exact));
            expect(p).toBeLessThanOrEqual(Math.ceil(exact));
          });
        },
      ),
    );
  });

  it('gives the left-over unit to the largest remainder, the earlier weight on a tie', () => {
    expect(largestRemainder([1, 1, 1], 100, 3)).toEqual([34, 33, 33]);
    expect(largestRemainder([2, 1], 2, 3)).toEqual([1, 1]);
  });
});

describe('roundHalfAwayFromZero', () => {
  it('rounds halves away from zero whatever the signs', () => {
    expect(roundHalfAwayFromZero(5n, 2n)).toBe(3);
    expect(roundHalfAwayFromZero(-5n, 2n)).toBe(-3);
    expect(roundHalfAwayFromZero(5n, -2n)).toBe(-3);
    expect(roundHalfAwayFromZero(7n, 3n)).toBe(2);
    expect(roundHalfAwayFromZero(0n, 7n)).toBe(0);
  });
});
