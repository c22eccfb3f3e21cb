import { z } from 'zod';

/**
 * A config `superRefine` check: in production (NODE_ENV=production) each named URL setting must be
 * https; one that is not gets its message, in the order the settings are named.
 */
export function httpsInProduction<K extends string>(
  messages: Readonly<Record<K, string>>,
): (config: { NODE_ENV?: string } & Readonly<Record<K, string>>, ctx: z.RefinementCtx) => void {
  return (config, ctx) => {
    if (config.NODE_ENV !== 'production') return;
    for (const key in messages) {
      if (!config[key].startsWith('https://')) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: messages[key] });
      }
    }
  };
}
