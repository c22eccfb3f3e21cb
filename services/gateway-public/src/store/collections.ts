import type { CollectionSpec } from '@paymesh/store';

/** Portal sessions (OTP codes, magic-link exchanges, refresh tokens) live here once the portal lands. */
export const collections: CollectionSpec[] = [];
