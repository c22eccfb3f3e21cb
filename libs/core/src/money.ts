/**
 * Integer money arithmetic shared by the services that split amounts (tax allocation of invoice
 * payments, refund reversals in the tax ledger). Amounts are minor units; no floating point.
 */

/** n / d rounded half away from zero (any signs, d != 0). */
export function roundHalfAwayFromZero(n: bigint, d: bigint): number {
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (ad * 2n);
  return Number(negative ? -q : q);
}

/**
 * Splits `amount` over `weights` summing to `total` (> 0) so the parts sum to `amount` exactly:
 * each part is its share rounded down, and the units left go one each to the largest remainders
 * (ties: the earlier weight).
 */
export function largestRemainder(weights: readonly number[], amount: number, total: number): number[] {
  const A = BigInt(amount);
  const T = BigInt(total);
  const floors = weights.map((w) => (BigInt(w) * A) / T);
  const rema = weights.map((w, i) => ({ i, r: (BigInt(w) * A) % T }));
  let left = A - floors.reduce((s, f) => s + f, 0n);
  rema.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of rema) {
    if (left <= 0n) break;
    floors[i] = (floors[i] ?? 0n) + 1n;
    left -= 1n;
  }
  return floors.map(Number);
}
