import type { CollectionSpec } from '@paymesh/store';

export const SITE_INVOICING = 'site_invoicing_settings';

export const collections: CollectionSpec[] = [
  { name: SITE_INVOICING, indexes: [{ name: 'site_invoicing_org', fields: ['organizationId'] }] },
];
