import type { CollectionSpec } from '@paymesh/store';

export const SITES = 'sites';

export const collections: CollectionSpec[] = [
  {
    name: SITES,
    indexes: [{ name: 'sites_org_mode_created', fields: ['organizationId', 'mode', 'createdAt'] }],
  },
];
