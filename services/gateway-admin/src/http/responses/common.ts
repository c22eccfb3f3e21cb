import { objectId } from '@paymesh/core';
import { z, type ZodTypeAny } from 'zod';

/** RFC 3339 instant as the services write it (ISO 8601, UTC or with an offset). */
export const timestamp = z.string().datetime({ offset: true });

/** A 24-hex object identifier. */
export const objectIdString = objectId();

/** Whether an answer was made with a test-mode key (test data never mixes with live data). */
export const testMode = z.boolean();

/** One page of a list: the items and where they sit in the whole. */
export function page<T extends ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int().min(0).describe('items matching the filters, over all pages'),
    page: z.number().int().min(1),
    limit: z.number().int().min(1),
  });
}

/** Answer of deletes that confirm what they removed. */
export const deleted = z.object({ id: objectIdString, deleted: z.boolean().describe('always true') });

/** Free-form string map attached by the merchant. */
export const metadata = z.record(z.string());
