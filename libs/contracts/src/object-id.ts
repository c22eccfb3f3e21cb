import { z } from 'zod';

/** A 24-hex document identifier, as every contract carries ids (the same rule as `objectId()` of @paymesh/core). */
export const objectId = z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-hex identifier');
