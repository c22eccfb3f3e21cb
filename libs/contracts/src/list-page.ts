import { z } from 'zod';

/** One page of a list: the items and where they sit in the whole (the Admin API's list envelope). */
export const listPage = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
  });

/**
 * A page of a list whose count stops at `countCap` matches (written as the docs show it, e.g.
 * `1,001`): past it, `total` is only a lower bound and says so.
 */
export const cappedListPage = <T extends z.ZodTypeAny>(item: T, countCap: string) =>
  z.object({
    items: z.array(item),
    total: z.number().int().min(0),
    totalIsLowerBound: z
      .literal(true)
      .optional()
      .describe(
        `present (true) when \`total\` is only a lower bound: counting stopped at ${countCap} matches, or one past the page asked for when that is further; there are at least this many`,
      ),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
  });
