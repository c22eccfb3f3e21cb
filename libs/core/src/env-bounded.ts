import { envInt } from './config';

/**
 * An integer setting from `min` to `max` (both included); unset or empty, `def`. A value outside
 * fails the start with `NAME must be from min to max`.
 */
export const envIntBounded = (def: number, min: number, max: number, name: string) =>
  envInt(def).refine((n) => n >= min && n <= max, `${name} must be from ${min} to ${max}`);
