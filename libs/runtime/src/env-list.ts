import { z } from 'zod';

/** A comma-separated list in one environment variable: items trimmed, empty ones dropped; unset means `def`. */
export const envList = (def = '') =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
