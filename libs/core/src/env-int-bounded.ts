import { envInt } from './config';

/**
 * An integer setting that must lie from `min` to `max` (both included); unset or empty: `def`.
 * Out of range, the config fails with "`name` must be from `min` to `max`".
 */
export const envIntBounded = (def: number, min: number, max: number, name: string) =>
  envInt(def).refine((n) => n >= min && n <= max, `${name} must be from ${min} to ${max}`);
