/**
 * When an abandoned transaction whose provider did not cancel (refused, or could not answer) is
 * tried again: `retryMs` after the first attempt, doubling with every further attempt, at most
 * `capMs`. After the cap it keeps being tried at the cap interval (money may still arrive or the
 * provider may still cancel); nothing is ever concluded from the number of attempts.
 *
 * @param attempts attempts already made before this one (0 for the first)
 */
export function expiryRetryDelayMs(retryMs: number, attempts: number, capMs: number): number {
  const cap = Math.max(retryMs, capMs);
  const n = Math.max(0, Math.floor(attempts));
  // 2^n overflows to Infinity for large n; the cap bounds it either way.
  return Math.min(retryMs * 2 ** Math.min(n, 1023), cap);
}

/** Default ceiling of the pause between two expiry attempts of one transaction. */
export const EXPIRY_RETRY_CAP_MS = 6 * 3_600_000;
