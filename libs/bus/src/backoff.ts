/** Redelivery delay after a failed handler: exponential from `initialMs`, capped at `maxMs`. */
export interface BackoffOptions {
  /** Delay after the first failure; default 1 000 ms. */
  initialMs?: number;
  /** Upper bound; default 60 000 ms. */
  maxMs?: number;
}

/**
 * Delay before redelivering a message whose handler failed on delivery number `deliveryCount`
 * (1 for the first delivery): `initialMs * 2^(deliveryCount - 1)`, at most `maxMs`.
 */
export function retryDelayMs(deliveryCount: number, opts: BackoffOptions = {}): number {
  const initial = Math.max(0, opts.initialMs ?? 1_000);
  const max = Math.max(initial, opts.maxMs ?? 60_000);
  const exponent = Math.min(Math.max(deliveryCount - 1, 0), 30);
  return Math.min(max, initial * 2 ** exponent);
}
