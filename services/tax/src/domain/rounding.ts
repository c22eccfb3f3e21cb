import type { RoundingMethod } from './tax-settings';

/**
 * The one place where VAT is rounded to minor units. Percentages travel as integer basis points
 * (hundredths of a percent: 19 % = 1900, 5.5 % = 550) and amounts as BigInt minor units, so every
 * step before the single rounding is exact.
 *
 * - `half_up` rounds halves away from zero, symmetrically: +0.5 -> +1 and -0.5 -> -1, so a discount
 *   line is the exact mirror of the line it cancels.
 * - `half_even` rounds halves to the even neighbour (0.5 -> 0, 1.5 -> 2, -2.5 -> -2).
 */

/** Denominator of basis points. */
export const BP_SCALE = 10_000n;

/** Percent with at most two decimals -> basis points (25.5 -> 2550). */
export function percentToBp(percent: number): number {
  return Math.round(percent * 100);
}

/** Basis points -> percent (2550 -> 25.5). */
export function bpToPercent(bp: number): number {
  return bp / 100;
}

/** `n / d` rounded to an integer by `method`; `d` must be positive. */
export function divRound(n: bigint, d: bigint, method: RoundingMethod): bigint {
  const q = n / d; // truncates toward zero
  const r = n % d; // sign of n
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  const away = n < 0n ? q - 1n : q + 1n;
  if (twice > d) return away;
  if (twice < d) return q;
  if (method === 'half_up') return away;
  return q % 2n === 0n ? q : away;
}

/** Largest integer <= n / d; `d` must be positive. */
export function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/**
 * Exact VAT of one amount as a fraction over `denominatorOf(bp)`: for a net amount tax = net·r,
 * for a gross amount tax = gross·r / (1 + r). Both use the common denominator
 * 10000·(10000 + bp), so net and gross amounts of one rate can be summed exactly.
 */
export function exactTaxNumerator(amount: bigint, bp: bigint, gross: boolean): bigint {
  return gross ? amount * bp * BP_SCALE : amount * bp * (BP_SCALE + bp);
}

export function denominatorOf(bp: bigint): bigint {
  return BP_SCALE * (BP_SCALE + bp);
}

/** VAT of one amount rounded once (per-line rounding). */
export function roundedTax(amount: bigint, bp: number, gross: boolean, method: RoundingMethod): bigint {
  if (bp === 0) return 0n;
  const b = BigInt(bp);
  return gross ? divRound(amount * b, BP_SCALE + b, method) : divRound(amount * b, BP_SCALE, method);
}

/**
 * Per-document rounding of one group (one rate): the group's tax is the exact sum of the lines'
 * exact taxes rounded once; it is then spread over the lines by largest remainder (each line gets
 * its floor, and the lines with the largest fractional parts get one more minor unit, earlier
 * lines first on equal remainders), so the lines add up exactly to the group's figure.
 */
export function distributeGroupTax(
  numerators: readonly bigint[],
  denominator: bigint,
  method: RoundingMethod,
): bigint[] {
  let sum = 0n;
  for (const n of numerators) sum += n;
  const target = divRound(sum, denominator, method);
  const floors = numerators.map((n) => floorDiv(n, denominator));
  let floorSum = 0n;
  for (const f of floors) floorSum += f;
  let extra = target - floorSum;
  if (extra === 0n) return floors;
  const order = numerators
    .map((n, i) => ({ i, rem: n - floorDiv(n, denominator) * denominator }))
    .filter((x) => x.rem > 0n)
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of order) {
    if (extra === 0n) break;
    floors[i] = (floors[i] ?? 0n) + 1n;
    extra -= 1n;
  }
  return floors;
}
